package dev.ratelimit.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.JedisScriptExecutor;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import redis.clients.jedis.JedisPooled;

/**
 * The lesson's exercise 4: 5,000 decisions per second offered across 1,000 clients, for each algorithm (limit 10 per
 * 1 s, the reference shape; each request from a client drawn at random, so about 5 per client per second, in random
 * bursts). The load is open: request n is due at {@code n / 5000} s whatever happened before, and its latency counts
 * from when it was due, so a Redis that falls behind shows in the latency rather than in a slower offer. Reported per
 * algorithm: the decisions made per second, the share admitted, Redis' CPU time per 1,000 decisions ({@code INFO cpu}),
 * the memory the limits take ({@code used_memory} after the run minus before it, on an emptied Redis), the keys, and
 * the p50 and p99 latency.
 *
 * <p>
 * Options: {@code --load-seconds} per algorithm (default 10), {@code --threads} sending (16).
 */
final class OfferedLoad {

	static final int RATE = 5000;

	static final int CLIENTS = 1000;

	private OfferedLoad() {
	}

	static void run(Options options, JedisPooled jedis) throws InterruptedException {
		int seconds = options.number("load-seconds", 10, 1);
		int threads = JavaApiBenchmark.threads(options);
		System.out.printf(Locale.ROOT, "%nOffered load (exercise 4): %d decisions/s across %d clients for %d s per "
				+ "algorithm, limit 10 per 1 s, %d threads sending%n", RATE, CLIENTS, seconds, threads);
		System.out.println();
		System.out.printf(Locale.ROOT, "| %-24s | %11s | %9s | %20s | %12s | %6s | %12s | %8s | %8s |%n", "algorithm",
				"decisions/s", "admitted", "Redis CPU ms / 1,000", "memory bytes", "keys", "bytes / key", "p50 ms",
				"p99 ms");
		System.out.printf(Locale.ROOT, "| %-24s | %11s | %9s | %20s | %12s | %6s | %12s | %8s | %8s |%n", "---", "---:",
				"---:", "---:", "---:", "---:", "---:", "---:", "---:");
		RateLimiter limiter = new RedisRateLimiter(new JedisScriptExecutor(jedis));
		String[] clients = JavaApiBenchmark.clients(CLIENTS);
		for (Algorithm algorithm : Algorithm.values()) {
			LimitDefinition limit = LimitDefinition.of("api", algorithm, 10, Duration.ofSeconds(1));
			jedis.flushAll();
			// one decision first, so that the script is cached and the memory baseline holds no key
			limiter.tryAcquire("warm-up", limit);
			jedis.flushAll();
			long memoryBefore = usedMemory(jedis);
			double cpuBefore = JavaApiBenchmark.redisCpuSeconds(jedis);
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
			double cpu = JavaApiBenchmark.redisCpuSeconds(jedis) - cpuBefore;
			long memory = usedMemory(jedis) - memoryBefore;
			long keys = jedis.dbSize();
			long allowed = 0;
			for (boolean a : admitted) {
				allowed += a ? 1 : 0;
			}
			long[] sorted = latencies.clone();
			java.util.Arrays.sort(sorted);
			System.out.printf(Locale.ROOT, "| %-24s | %11.0f | %8.1f%% | %20.1f | %12d | %6d | %12.0f | %8.2f | %8.2f |%n",
					algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-'), latencies.length / elapsed,
					100.0 * allowed / latencies.length, cpu * 1e6 / latencies.length, memory, keys,
					(keys == 0) ? 0.0 : (double) memory / keys, sorted[sorted.length / 2] / 1e6,
					sorted[(int) Math.ceil(0.99 * sorted.length) - 1] / 1e6);
		}
		jedis.flushAll();
	}

	private static long usedMemory(JedisPooled jedis) {
		for (String line : jedis.info("memory").split("\\r?\\n")) {
			if (line.startsWith("used_memory:")) {
				return Long.parseLong(line.substring(12).trim());
			}
		}
		throw new IllegalStateException("INFO memory without used_memory");
	}

}
