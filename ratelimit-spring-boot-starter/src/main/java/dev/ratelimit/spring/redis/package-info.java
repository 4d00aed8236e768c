/**
 * What the limiter's own Redis clients (the core's {@code dev.ratelimit.core.redis} executors on Lettuce and Jedis)
 * add for Redis Cluster and Sentinel: topology refreshes and failovers.
 */
package dev.ratelimit.spring.redis;
