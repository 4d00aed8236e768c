/**
 * Ahead-of-time processing: the runtime hints of what the starter reads reflectively, and the check at run time of
 * the condition properties decided when processing.
 */
@NullMarked
package dev.ratelimit.spring.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
