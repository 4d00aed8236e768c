package dev.ratelimit.core;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import redis.clients.jedis.JedisPooled;

/** {@link Concurrency} on a real Redis: the scripts are atomic. */
class RedisConcurrencyTest extends Concurrency {

	private static final JedisPooled jedis = SharedJedis.get();

	@Override
	RateLimiter newLimiter(String prefix) {
		return new RedisRateLimiter(new JedisScriptExecutor(jedis), prefix + System.nanoTime() + ":");
	}

}
