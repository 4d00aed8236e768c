/**
 * {@link dev.ratelimit.core.ScriptExecutor}s on Redis clients: {@link dev.ratelimit.core.redis.JedisScriptExecutor}
 * on a Jedis client the caller owns; {@link dev.ratelimit.core.redis.LettuceScriptExecutor} (one pipelined Lettuce
 * connection) and {@link dev.ratelimit.core.redis.PooledJedisScriptExecutor} (Jedis, with threads of its own), which
 * reconnect by themselves and judge the requests' deadlines ({@link dev.ratelimit.core.redis.Timeouts}) with what
 * Redis does with their calls ({@link dev.ratelimit.core.redis.FairDeadlines}). Each needs its client on the class
 * path (both are optional dependencies of the core); nothing here needs Spring.
 */
@NullMarked
package dev.ratelimit.core.redis;

import org.jspecify.annotations.NullMarked;
