/**
 * Spring Cloud Gateway Server MVC: the {@code RateLimited} route filter, a {@code HandlerFilterFunction} for the
 * routes of {@code spring.cloud.gateway.server.webmvc.routes} and of the Java DSL
 * ({@link dev.ratelimit.spring.gateway.mvc.RateLimitedFilterFunctions}).
 */
@NullMarked
package dev.ratelimit.spring.gateway.mvc;

import org.jspecify.annotations.NullMarked;
