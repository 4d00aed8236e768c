/**
 * What Spring MVC and WebFlux share: the filter rules by path, the split between limits decided on a request's arrival
 * and at the handler's call, and the exception handler of the starter's own exceptions.
 */
@NullMarked
package dev.ratelimit.spring.web;

import org.jspecify.annotations.NullMarked;
