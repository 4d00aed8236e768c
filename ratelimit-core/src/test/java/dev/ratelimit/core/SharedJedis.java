package dev.ratelimit.core;

import dev.ratelimit.test.TestRedis;
import redis.clients.jedis.JedisPooled;

/** One Jedis client on {@link TestRedis#shared()} for the tests that need no server of their own. */
final class SharedJedis {

	private static JedisPooled jedis;

	private SharedJedis() {
	}

	/** The client, created on first use and closed when the test JVM ends, as the shared server is. */
	static synchronized JedisPooled get() {
		if (jedis == null) {
			TestRedis redis = TestRedis.shared();
			JedisPooled client = new JedisPooled(redis.host(), redis.port());
			Runtime.getRuntime().addShutdownHook(new Thread(client::close, "shared-jedis-close"));
			jedis = client;
		}
		return jedis;
	}

}
