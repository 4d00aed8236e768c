/**
 * The ratelimit demo application: rate-limited endpoints, the playground, calls outside requests, and the reference
 * comparison of the four algorithms ({@code --compare}), on an embedded Redis when none is configured.
 */
@NullMarked
package dev.ratelimit.sample;

import org.jspecify.annotations.NullMarked;
