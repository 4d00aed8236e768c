package dev.ratelimit.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The lesson's exercise 4: 5,000 decisions per second offered across 1,000 clients, for each algorithm (limit 10 per
 * 1 s, the reference shape; each request from a client drawn at random, so about 5 per client per second, in random
 * bursts). The load is open: request n is due at {@code n / 5000} s whatever happened before, and its latency counts
 * from when it was due, so a Redis that falls behind shows in the latency rather than in a slower offer. Reported per
 * algorithm: the decisions made per second, the share admitted, Redis' CPU time per 1,000 decisions ({@code INFO cpu}),
 * the keys and the memory they take ({@code MEMORY USAGE} of each, key names included; not {@code used_memory}, which
 * moves with the connections' buffers), and the p50 and p99 latency.
 *
 * <p>
 * Options: {@code --load-seconds} per algorithm (default 10), {@code --threads} sending (16).
 */
final class OfferedLoad {

	static final int RATE = 5000;

	static final int CLIENTS = 1000;

	private OfferedLoad() {
	}

	/** This part's options, read before anything runs. */
	record Settings(int seconds, int threads) {

		/** @throws IllegalArgumentException for a value out of range */
		static Settings of(Options options) {
			return new Settings(options.number("load-seconds", 10, 1, 600), JavaApiBenchmark.threads(options));
		}

	}

	static void run(Settings settings, JedisPooled jedis) throws InterruptedException {
		int seconds = settings.seconds();
		int threads = settings.threads();
		System.out.printf(Locale.ROOT, "%nOffered load (exercise 4): %d decisions/s across %d clients for %d s per "
				+ "algorithm, limit 10 per 1 s, %d threads sending%n", RATE, CLIENTS, seconds, threads);
		System.out.println();
		System.out.printf(Locale.ROOT, "| %-24s | %11s | %9s | %20s | %12s | %6s | %12s | %8s | %8s |%n", "algorithm",
				"decisions/s", "admitted", "Redis CPU ms / 1,000", "MEMORY USAGE", "keys", "bytes / key", "p50 ms",
				"p99 ms");
		System.out.printf(Locale.ROOT, "| %-24s | %11s | %9s | %20s | %12s | %6s | %12s | %8s | %8s |%n", "---", "---:",
				"---:", "---:", "---:", "---:", "---:", "---:", "---:");
		RateLimiter limiter = new RedisRateLimiter(new JedisScriptExecutor(jedis));
		String[] clients = ApiScenarios.clients(CLIENTS);
		for (Algorithm algorithm : Algorithm.rates()) {
			LimitDefinition limit = LimitDefinition.of("api", algorithm, 10, Duration.ofSeconds(1));
			jedis.flushAll();
			// one decision first, so that the script is cached and the memory baseline holds no key
			limiter.tryAcquire("warm-up", limit);
			jedis.flushAll();
			double cpuBefore = RedisCounters.redisCpuSeconds(jedis);
			long[] latencies = new long[RATE * seconds];
			boolean[] admitted = new boolean[latencies.length];
			long start = System.nanoTime() + 50_000_000;
			List<Thread> senders = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int first = t;
				Thread sender = new Thread(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int n = first; n < latencies.length; n += threads) {
						long due = start + n * (1_000_000_000L / RATE);
						long wait = due - System.nanoTime();
						if (wait > 0) {
							LockSupport.parkNanos(wait);
						}
						admitted[n] = limiter.tryAcquire(clients[random.nextInt(CLIENTS)], limit).allowed();
						latencies[n] = System.nanoTime() - due;
					}
				}, "offered-load-" + t);
				sender.start();
				senders.add(sender);
			}
			for (Thread sender : senders) {
				sender.join();
			}
			double elapsed = (System.nanoTime() - start) / 1e9;
			double cpu = RedisCounters.redisCpuSeconds(jedis) - cpuBefore;
			long keys = 0;
			long memory = 0;
			ScanParams all = new ScanParams().match("*").count(1000);
			String cursor = ScanParams.SCAN_POINTER_START;
			do {
				ScanResult<String> page = jedis.scan(cursor, all);
				for (String key : page.getResult()) {
					Long bytes = jedis.memoryUsage(key);
					memory += (bytes != null) ? bytes : 0;
					keys++;
				}
				cursor = page.getCursor();
			}
			while (!cursor.equals(ScanParams.SCAN_POINTER_START));
			long allowed = 0;
			for (boolean a : admitted) {
				allowed += a ? 1 : 0;
			}
			long[] sorted = latencies.clone();
			Arrays.sort(sorted);
			System.out.printf(Locale.ROOT, "| %-24s | %11.0f | %8.1f%% | %20.1f | %12d | %6d | %12.0f | %8.2f | %8.2f |%n",
					algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-'), latencies.length / elapsed,
					100.0 * allowed / latencies.length, cpu * 1e6 / latencies.length, memory, keys,
					(keys == 0) ? 0.0 : (double) memory / keys, sorted[sorted.length / 2] / 1e6,
					sorted[(int) Math.ceil(0.99 * sorted.length) - 1] / 1e6);
		}
		jedis.flushAll();
	}

}
