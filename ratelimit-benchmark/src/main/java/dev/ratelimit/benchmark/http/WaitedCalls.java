package dev.ratelimit.benchmark.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.ratelimit.benchmark.Options;
import dev.ratelimit.benchmark.RedisCounters;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.test.TestRedis;
import redis.clients.jedis.JedisPooled;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * How closely calls that wait for a permit follow their limit, and what their waits cost: {@code --threads} threads
 * per instance of the benchmark application call a {@code @RateLimited} method outside any HTTP request
 * ({@link Partner}: 100 per second for all callers of a run, {@code maxWait} 10 s) as fast as each is let through,
 * for {@code --wait-seconds}, once per algorithm and way of waiting (blocking, {@code CompletionStage}, Reactor), with
 * one instance and with two on the same Redis; every admitted call records when it ran, as the stand-in partner of
 * the sample app does. Printed: the permits per second, overall and after the first second (the token bucket's full
 * bucket and the windows' first window are spent in it), the most in any 1 s span, the Redis script calls per permit
 * (the waits' cost: denied callers that asked again), and the calls that gave up.
 */
public final class WaitedCalls {

	/** The limit of every scenario: 100 per second. */
	static final int LIMIT = 100;

	private static final List<String> ALGORITHMS = List.of("token-bucket", "fixed-window", "sliding-window-counter",
			"sliding-log");

	private static final List<String> STYLES = List.of("blocking", "completion-stage", "reactor");

	/** This part's options, read before anything runs. */
	public record Settings(int threads, int seconds) {

		/** @throws IllegalArgumentException for a value out of range */
		public static Settings of(Options options) {
			return new Settings(options.number("threads", 16, 1, 1024), options.number("wait-seconds", 5, 2, 600));
		}

	}

	private WaitedCalls() {
	}

	public static void run(Settings settings, TestRedis redis, JedisPooled jedis) throws Exception {
		try (ConfigurableApplicationContext first = HttpBenchmark.start(redis, HttpBenchmark.Instance.PLAIN);
				ConfigurableApplicationContext second = HttpBenchmark.start(redis, HttpBenchmark.Instance.PLAIN)) {
			List<Partner> both = List.of(first.getBean(Partner.class), second.getBean(Partner.class));
			System.out.printf(Locale.ROOT,
					"%nWaited calls: %d threads per instance for %d s per scenario, limit %d per 1 s, maxWait 10 s%n",
					settings.threads(), settings.seconds(), LIMIT);
			String format = "| %9s | %-16s | %-24s | %10s | %18s | %16s | %17s | %8s |%n";
			System.out.println();
			System.out.printf(Locale.ROOT, format, "instances", "wait", "algorithm", "permits/s", "after the first s",
					"most in any 1 s", "script calls/permit", "gave up");
			System.out.printf(Locale.ROOT, format, "---:", "---", "---", "---:", "---:", "---:", "---:", "---:");
			for (List<Partner> partners : List.of(both.subList(0, 1), both)) {
				for (String style : STYLES) {
					for (String algorithm : ALGORITHMS) {
						run(algorithm, style, partners, settings, jedis, format);
					}
				}
			}
		}
	}

	/** One call of {@code algorithm}'s method, waited for as {@code style} says. */
	private static Consumer<List<Long>> call(Partner partner, String algorithm, String style, String run) {
		return switch (style) {
			case "blocking" -> switch (algorithm) {
				case "token-bucket" -> (arrivals) -> partner.tokenBucket(run, arrivals);
				case "fixed-window" -> (arrivals) -> partner.fixedWindow(run, arrivals);
				case "sliding-window-counter" -> (arrivals) -> partner.slidingWindowCounter(run, arrivals);
				default -> (arrivals) -> partner.slidingLog(run, arrivals);
			};
			case "completion-stage" -> (arrivals) -> join(switch (algorithm) {
				case "token-bucket" -> partner.tokenBucketStage(run, arrivals);
				case "fixed-window" -> partner.fixedWindowStage(run, arrivals);
				case "sliding-window-counter" -> partner.slidingWindowCounterStage(run, arrivals);
				default -> partner.slidingLogStage(run, arrivals);
			});
			default -> (arrivals) -> (switch (algorithm) {
				case "token-bucket" -> partner.tokenBucketMono(run, arrivals);
				case "fixed-window" -> partner.fixedWindowMono(run, arrivals);
				case "sliding-window-counter" -> partner.slidingWindowCounterMono(run, arrivals);
				default -> partner.slidingLogMono(run, arrivals);
			}).block();
		};
	}

	/** Waits for {@code stage}, throwing what failed it (a denial) as itself. */
	private static void join(CompletionStage<Void> stage) {
		try {
			stage.toCompletableFuture().join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	private static void run(String algorithm, String style, List<Partner> partners, Settings settings,
			JedisPooled jedis, String format) throws InterruptedException {
		// a budget of its own for each run (the key); through the beans' proxies, which apply the limits
		String run = UUID.randomUUID().toString();
		List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger gaveUp = new AtomicInteger();
		long callsBefore = RedisCounters.clientCalls(jedis);
		long start = System.nanoTime();
		long end = start + TimeUnit.SECONDS.toNanos(settings.seconds());
		List<Thread> threads = new ArrayList<>();
		for (Partner partner : partners) {
			Consumer<List<Long>> call = call(partner, algorithm, style, run);
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
		}
		for (Thread thread : threads) {
			// a caller that was waiting at the end finishes its wait (at most maxWait)
			thread.join(TimeUnit.SECONDS.toMillis(30));
		}
		long scriptCalls = RedisCounters.clientCalls(jedis) - callsBefore;
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
		System.out.printf(Locale.ROOT, "| %9d | %-16s | %-24s | %10.1f | %18.1f | %16d | %17.2f | %8d |%n",
				partners.size(), style, algorithm, (double) within.size() / settings.seconds(),
				(double) afterFirst / (settings.seconds() - 1), mostInAnySecond(within),
				(double) scriptCalls / Math.max(1, arrivals.size()), gaveUp.get());
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
