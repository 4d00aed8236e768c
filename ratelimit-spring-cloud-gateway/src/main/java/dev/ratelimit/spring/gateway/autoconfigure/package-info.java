/**
 * Wiring only: the route filters and the {@code RateLimiter} on Gateway Server WebFlux, the route filter on Gateway
 * Server MVC, each where its gateway server is.
 */
@NullMarked
package dev.ratelimit.spring.gateway.autoconfigure;

import org.jspecify.annotations.NullMarked;
