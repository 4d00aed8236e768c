/**
 * The drop-in checks' Spring MVC host application, which knows nothing of the starter, and the report of what it owns.
 */
@NullMarked
package dev.ratelimit.dropin.host;

import org.jspecify.annotations.NullMarked;
