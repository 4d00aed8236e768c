/**
 * The starter's API: {@link dev.ratelimit.spring.RateLimited} and the exceptions a denied or undecided call throws, with
 * the enums its configuration names. See docs/ARCHITECTURE.md for the packages beside it.
 */
@NullMarked
package dev.ratelimit.spring;

import org.jspecify.annotations.NullMarked;
