package dev.ratelimit.benchmark;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.ScanParams;

/**
 * What one decision costs Redis, measured on the server: the commands it runs (from {@code INFO commandstats}, which
 * counts the commands a script calls; the script call itself left out), and the memory an idle client keeps
 * ({@code MEMORY USAGE} of its key after one admitted request, key name included). Keys as an application has them:
 * the default prefix {@code rl:} and a limit named {@code api}.
 */
final class RedisFootprint {

	private static final int DECISIONS = 1000;

	private RedisFootprint() {
	}

	static void print(JedisPooled jedis) {
		System.out.println();
		System.out.printf(Locale.ROOT, "| %-40s | %22s | %21s | %12s | %9s |%n", "per decision", "commands when admitted",
				"commands when denied", "idle bytes", "key chars");
		System.out.printf(Locale.ROOT, "| %-40s | %22s | %21s | %12s | %9s |%n", "---", "---:", "---:", "---:", "---:");
		RateLimiter limiter = new RedisRateLimiter(new JedisScriptExecutor(jedis));
		for (Algorithm algorithm : Algorithm.rates()) {
			LimitDefinition admitting = (algorithm == Algorithm.SLIDING_LOG)
					? LimitDefinition.of("api", algorithm, 100, Duration.ofSeconds(1))
					: LimitDefinition.of("api", algorithm, 1_000_000_000, Duration.ofSeconds(1));
			LimitDefinition denying = LimitDefinition.of("api", algorithm, 1, Duration.ofHours(1));
			jedis.flushAll();
			// the sliding log admitting: 100 clients, 10 requests each, so that every set holds entries to read
			double admitted = commands(jedis, (i) -> limiter.tryAcquire("client-" + (i % 100), admitting));
			jedis.flushAll();
			limiter.tryAcquire("denied", denying);
			double denied = commands(jedis, (i) -> limiter.tryAcquire("denied", denying));
			jedis.flushAll();
			limiter.tryAcquire("idle", admitting);
			String key = onlyKey(jedis);
			row(algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-'), admitted, denied,
					jedis.memoryUsage(key), key.length());
		}
		LessonScript lesson = new LessonScript(jedis);
		jedis.flushAll();
		double admitted = commands(jedis, (i) -> lesson.decide("rl:lesson:" + (i % 100), true));
		jedis.flushAll();
		double denied = commands(jedis, (i) -> lesson.decide("rl:lesson:denied", false));
		jedis.flushAll();
		lesson.decide("tb:1", true);
		row("lesson's token-bucket script, key tb:1", admitted, denied, jedis.memoryUsage("tb:1"), 4);
		jedis.flushAll();
	}

	private static void row(String name, double admitted, double denied, Long bytes, int keyChars) {
		System.out.printf(Locale.ROOT, "| %-40s | %22.2f | %21.2f | %12d | %9d |%n", name, admitted, denied, bytes,
				keyChars);
	}

	interface Decision {

		void run(int i);

	}

	/** Commands per decision run by {@code DECISIONS} decisions, scripts and INFO itself left out. */
	private static double commands(JedisPooled jedis, Decision decision) {
		Map<String, Long> before = calls(jedis.info("commandstats"));
		for (int i = 0; i < DECISIONS; i++) {
			decision.run(i);
		}
		Map<String, Long> after = calls(jedis.info("commandstats"));
		long total = 0;
		for (Map.Entry<String, Long> entry : after.entrySet()) {
			if (!List.of("evalsha", "eval", "info", "flushall", "script|load", "script").contains(entry.getKey())) {
				total += entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
			}
		}
		return (double) total / DECISIONS;
	}

	private static Map<String, Long> calls(String commandstats) {
		Map<String, Long> calls = new HashMap<>();
		for (String line : commandstats.split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring(8, line.indexOf(':'));
				String value = line.substring(line.indexOf("calls=") + 6);
				calls.put(name, Long.parseLong(value.substring(0, value.indexOf(','))));
			}
		}
		return calls;
	}

	private static String onlyKey(JedisPooled jedis) {
		List<String> keys = jedis.scan(ScanParams.SCAN_POINTER_START, new ScanParams().match("*").count(1000)).getResult();
		if (keys.size() != 1) {
			throw new IllegalStateException("expected one key, found " + keys);
		}
		return keys.get(0);
	}

}
