package dev.ratelimit.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import redis.clients.jedis.JedisPooled;

/**
 * The lesson's bare token-bucket script ({@code lesson_token_bucket.lua}), called the way the limiter calls its own:
 * {@code EVALSHA} with the time passed in. Admitting: a bucket of 10^9 tokens refilled with 10^9 per second;
 * denying: 1 token per hour.
 */
final class LessonScript {

	private final JedisPooled jedis;

	private final String sha;

	LessonScript(JedisPooled jedis) {
		this.jedis = jedis;
		this.sha = jedis.scriptLoad(source());
	}

	boolean decide(String key, boolean admitting) {
		List<String> args = admitting
				? List.of("1000000000", "1000000000", Long.toString(System.currentTimeMillis()), "1")
				: List.of("1", "0.000277777", Long.toString(System.currentTimeMillis()), "1");
		return ((Long) this.jedis.evalsha(this.sha, List.of(key), args)) == 1L;
	}

	static String source() {
		try (InputStream in = LessonScript.class.getResourceAsStream("lesson_token_bucket.lua")) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
