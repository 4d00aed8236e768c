package dev.ratelimit.core;

import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.JedisPooled;

/** {@link ReferenceResults} by the Lua scripts on a real Redis. */
class RedisReferenceResultsTest extends ReferenceResults {

	private static JedisPooled jedis;

	@BeforeAll
	static void connect() {
		TestRedis redis = TestRedis.shared();
		jedis = new JedisPooled(redis.host(), redis.port());
	}

	@AfterAll
	static void disconnect() {
		jedis.close();
	}

	@Override
	RateLimiter newLimiter(String prefix) {
		return new RedisRateLimiter(new JedisScriptExecutor(jedis), prefix);
	}

}
