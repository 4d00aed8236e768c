/**
 * What the limiter's own Redis clients (the core's {@code dev.ratelimit.core.redis} executors on Lettuce and Jedis)
 * add for Redis Cluster and Sentinel: topology refreshes and failovers.
 */
@NullMarked
package dev.ratelimit.spring.redis;

import org.jspecify.annotations.NullMarked;
