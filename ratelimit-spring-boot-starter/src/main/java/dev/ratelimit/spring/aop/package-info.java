/**
 * {@code @RateLimited} on any bean's methods: the advisor, the startup checks of the annotations, calls outside HTTP
 * requests and charging by outcome.
 */
@NullMarked
package dev.ratelimit.spring.aop;

import org.jspecify.annotations.NullMarked;
