/**
 * The gateway of the benchmark's HTTP part: Spring Cloud Gateway (Gateway Server WebFlux) whose routes compare its own
 * {@code RedisRateLimiter} with the starter's {@code RequestRateLimiter} replacement. A package of its own, apart from
 * the Spring MVC application's, whose component scan would otherwise find it.
 */
@NullMarked
package dev.ratelimit.benchmark.gateway;

import org.jspecify.annotations.NullMarked;
