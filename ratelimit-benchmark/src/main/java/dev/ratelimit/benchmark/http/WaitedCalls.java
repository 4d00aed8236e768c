package dev.ratelimit.benchmark.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.ratelimit.benchmark.Options;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.test.TestRedis;
import redis.clients.jedis.JedisPooled;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * How closely calls that wait for a permit follow their limit: {@code --threads} threads of the benchmark
 * application's JVM call a {@code @RateLimited} method outside any HTTP request ({@link BenchmarkApplication.Partner}:
 * 100 per second, no key, so one budget for all, {@code maxWait} 10 s) as fast as each is let through, for
 * {@code --wait-seconds}, once per algorithm; every admitted call records when it ran, as the stand-in partner of
 * the sample app does. Printed: the permits per second, overall and after the first second (the token bucket's
 * full bucket and the windows' first window are spent in it), the most in any 1 s span, the Redis script calls per
 * permit (the waits' cost: denied callers that asked again), and the calls that gave up.
 */
public final class WaitedCalls {

	/** The limit of every scenario: 100 per second. */
	static final int LIMIT = 100;

	/** This part's options, read before anything runs. */
	public record Settings(int threads, int seconds) {

		/** @throws IllegalArgumentException for a value out of range */
		public static Settings of(Options options) {
			return new Settings(options.number("threads", 16, 1, 1024), options.number("wait-seconds", 10, 2, 600));
		}

	}

	private WaitedCalls() {
	}

	public static void run(Settings settings, TestRedis redis, JedisPooled jedis) throws Exception {
		try (ConfigurableApplicationContext app = HttpBenchmark.start(redis, HttpBenchmark.Instance.PLAIN)) {
			BenchmarkApplication.Partner partner = app.getBean(BenchmarkApplication.Partner.class);
			System.out.printf(Locale.ROOT, "%nWaited calls: %d threads for %d s per algorithm, limit %d per 1 s, maxWait 10 s%n",
					settings.threads(), settings.seconds(), LIMIT);
			String format = "| %-24s | %10s | %18s | %16s | %17s | %8s |%n";
			System.out.println();
			System.out.printf(Locale.ROOT, format, "algorithm", "permits/s", "after the first s", "most in any 1 s",
					"script calls/permit", "gave up");
			System.out.printf(Locale.ROOT, format, "---", "---:", "---:", "---:", "---:", "---:");
			for (String algorithm : List.of("token-bucket", "fixed-window", "sliding-window-counter", "sliding-log")) {
				run(algorithm, partner, settings, jedis, format);
			}
		}
	}

	private static void run(String algorithm, BenchmarkApplication.Partner partner, Settings settings,
			JedisPooled jedis, String format) throws InterruptedException {
		// through the bean's proxy, which applies the limits
		Consumer<List<Long>> call = switch (algorithm) {
			case "token-bucket" -> partner::tokenBucket;
			case "fixed-window" -> partner::fixedWindow;
			case "sliding-window-counter" -> partner::slidingWindowCounter;
			default -> partner::slidingLog;
		};
		List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger gaveUp = new AtomicInteger();
		long callsBefore = HttpBenchmark.clientCalls(jedis);
		long start = System.nanoTime();
		long end = start + TimeUnit.SECONDS.toNanos(settings.seconds());
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < settings.threads(); i++) {
			Thread thread = new Thread(() -> {
				while (System.nanoTime() < end) {
					try {
						call.accept(arrivals);
					}
					catch (RateLimitExceededException ex) {
						gaveUp.incrementAndGet();
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			// a caller that was waiting at the end finishes its wait (at most maxWait)
			thread.join(TimeUnit.SECONDS.toMillis(30));
		}
		long scriptCalls = HttpBenchmark.clientCalls(jedis) - callsBefore;
		List<Long> within = new ArrayList<>();
		synchronized (arrivals) {
			for (long at : arrivals) {
				if (at < end) {
					within.add(at - start);
				}
			}
		}
		Collections.sort(within);
		long afterFirst = within.stream().filter((at) -> at >= TimeUnit.SECONDS.toNanos(1)).count();
		System.out.printf(Locale.ROOT, "| %-24s | %10.1f | %18.1f | %16d | %17.2f | %8d |%n", algorithm,
				(double) within.size() / settings.seconds(), (double) afterFirst / (settings.seconds() - 1),
				mostInAnySecond(within), (double) scriptCalls / Math.max(1, arrivals.size()), gaveUp.get());
	}

	/** The most arrivals (ns, sorted) in any span [t, t + 1 s). */
	static int mostInAnySecond(List<Long> sorted) {
		int most = 0;
		int first = 0;
		for (int last = 0; last < sorted.size(); last++) {
			while (sorted.get(last) - sorted.get(first) >= TimeUnit.SECONDS.toNanos(1)) {
				first++;
			}
			most = Math.max(most, last - first + 1);
		}
		return most;
	}

}
