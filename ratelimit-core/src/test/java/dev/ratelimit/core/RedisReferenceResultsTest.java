package dev.ratelimit.core;

import java.util.List;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import redis.clients.jedis.JedisPooled;

/**
 * {@link ReferenceResults} by the Lua scripts on a real Redis.
 *
 * <p>
 * The runs use explicit time, ten simulated seconds for the steady overload, while Redis expires keys on its own
 * clock, counting each TTL from when it was set. On a loaded machine more real time than a TTL can pass between two
 * requests that are milliseconds apart in simulated time, and Redis would then drop a state the simulated clock
 * still needs (a sliding window counter's run once admitted 14 in one second instead of 12). So every key is
 * PERSISTed after each call: the scripts tell stale state from current state by its content, never by its absence
 * (the TTLs themselves are tested by {@code DifferentialTest}, which moves expiry onto the explicit clock).
 */
class RedisReferenceResultsTest extends ReferenceResults {

	private static final JedisPooled jedis = SharedJedis.get();

	@Override
	RateLimiter newLimiter(String prefix) {
		ScriptExecutor redis = new JedisScriptExecutor(jedis);
		return new RedisRateLimiter((script, keys, args) -> {
			List<Long> reply = redis.execute(script, keys, args);
			keys.forEach(jedis::persist);
			return reply;
		}, prefix);
	}

}
