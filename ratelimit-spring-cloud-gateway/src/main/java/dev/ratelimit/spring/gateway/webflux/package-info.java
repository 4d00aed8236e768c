/**
 * Spring Cloud Gateway Server WebFlux: the {@code RateLimited} route filter
 * ({@link dev.ratelimit.spring.gateway.webflux.RateLimitedGatewayFilterFactory}) and a {@code RateLimiter} for the
 * gateway's {@code RequestRateLimiter} filter ({@link dev.ratelimit.spring.gateway.webflux.RateLimitGatewayRateLimiter}).
 */
@NullMarked
package dev.ratelimit.spring.gateway.webflux;

import org.jspecify.annotations.NullMarked;
