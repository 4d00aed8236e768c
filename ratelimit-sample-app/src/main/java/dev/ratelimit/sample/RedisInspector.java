package dev.ratelimit.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * What the comparison asks Redis directly, beside the limiter: the server version, the memory a client's state
 * takes ({@code MEMORY USAGE}), and the removal of the comparison's keys. Keys are found with {@code SCAN} (never
 * {@code KEYS}, which blocks the server), so a shared Redis is not disturbed.
 */
final class RedisInspector {

	/** Memory of a set of keys. */
	record Memory(int keys, long bytes) {
	}

	/**
	 * No typed API for {@code MEMORY USAGE} in Spring Data Redis, and Lettuce has no raw command for it: a script.
	 * A key that expired meanwhile answers nil, which is null here.
	 */
	private static final RedisScript<Long> MEMORY_USAGE = RedisScript
		.of("return redis.call('MEMORY', 'USAGE', KEYS[1])", Long.class);

	private final StringRedisTemplate redis;

	RedisInspector(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/** {@code redis_version} from {@code INFO server}. */
	String version() {
		Properties info = this.redis.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("server"));
		return (info != null) ? info.getProperty("redis_version", "unknown") : "unknown";
	}

	/** The keys matching the glob {@code pattern} and their {@code MEMORY USAGE} in bytes, added up. */
	Memory memory(String pattern) {
		List<String> keys = keys(pattern);
		long bytes = 0;
		int present = 0;
		for (String key : keys) {
			Long usage = this.redis.execute(MEMORY_USAGE, List.of(key));
			if (usage != null) {
				bytes += usage;
				present++;
			}
		}
		return new Memory(present, bytes);
	}

	/** Removes the keys matching {@code pattern}; returns how many there were. */
	long delete(String pattern) {
		List<String> keys = keys(pattern);
		Long removed = keys.isEmpty() ? Long.valueOf(0) : this.redis.unlink(keys);
		return (removed != null) ? removed : 0;
	}

	private List<String> keys(String pattern) {
		List<String> keys = new ArrayList<>();
		try (Cursor<String> cursor = this.redis.scan(ScanOptions.scanOptions().match(pattern).count(1000).build())) {
			cursor.forEachRemaining(keys::add);
		}
		return keys;
	}

}
