/**
 * Distributed rate limiting without Spring: the four algorithms as Lua scripts run atomically in Redis
 * ({@link dev.ratelimit.core.RedisRateLimiter}) or in memory ({@link dev.ratelimit.core.InMemoryRateLimiter}), behind
 * {@link dev.ratelimit.core.RateLimiter}.
 */
@NullMarked
package dev.ratelimit.core;

import org.jspecify.annotations.NullMarked;
