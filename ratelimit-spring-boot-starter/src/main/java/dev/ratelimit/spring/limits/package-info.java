/**
 * What a limit is: {@code @RateLimited} annotations, filter rules, plans and the defaults under {@code ratelimit.*}
 * turned into checked limits, read through {@link dev.ratelimit.spring.limits.LimitSettings}. Knows no web stack.
 */
@NullMarked
package dev.ratelimit.spring.limits;

import org.jspecify.annotations.NullMarked;
