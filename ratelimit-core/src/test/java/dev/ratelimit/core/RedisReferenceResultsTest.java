package dev.ratelimit.core;

import redis.clients.jedis.JedisPooled;

/** {@link ReferenceResults} by the Lua scripts on a real Redis. */
class RedisReferenceResultsTest extends ReferenceResults {

	private static final JedisPooled jedis = SharedJedis.get();

	@Override
	RateLimiter newLimiter(String prefix) {
		return new RedisRateLimiter(new JedisScriptExecutor(jedis), prefix);
	}

}
