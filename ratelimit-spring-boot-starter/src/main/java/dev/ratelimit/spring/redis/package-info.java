/**
 * The limiter's own Redis clients (Lettuce, Jedis) as the core's script executor, with deadlines that measure
 * Redis rather than a busy application, and their handling of Cluster and Sentinel failovers.
 */
package dev.ratelimit.spring.redis;
