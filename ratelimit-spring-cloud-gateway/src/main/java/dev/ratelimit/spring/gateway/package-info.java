/**
 * Rate limits on Spring Cloud Gateway routes, shared by both gateway servers: a route's limit as its filter's
 * arguments give it ({@link dev.ratelimit.spring.gateway.RouteLimit}), resolved into the starter's limits in each
 * configuration ({@link dev.ratelimit.spring.gateway.RouteLimits}), and the client keys that a route's definition may
 * compute ({@link dev.ratelimit.spring.gateway.RouteKeys}): route definitions can arrive over HTTP, so their
 * expressions read the request and nothing else.
 */
@NullMarked
package dev.ratelimit.spring.gateway;

import org.jspecify.annotations.NullMarked;
