package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.test.TestRedis;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

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

	/** Every key of {@code jedis}'s server under {@code prefix}, by {@code SCAN}. */
	static List<String> keys(JedisPooled jedis, String prefix) {
		List<String> keys = new ArrayList<>();
		String cursor = ScanParams.SCAN_POINTER_START;
		do {
			ScanResult<String> page = jedis.scan(cursor, new ScanParams().match(prefix + "*").count(1000));
			keys.addAll(page.getResult());
			cursor = page.getCursor();
		}
		while (!cursor.equals(ScanParams.SCAN_POINTER_START));
		return keys;
	}

}
