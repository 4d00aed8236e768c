package dev.ratelimit.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.test.TestRedis;
import redis.clients.jedis.JedisPooled;

/**
 * Decisions per second through the Java API, for both backends, against {@code PING} (the floor of one Redis round
 * trip) and a minimal one-command script, in one interleaved run: every round measures every scenario once, so a
 * machine that gets busier slows all of them alike, and the table shows medians over the rounds. It runs on the
 * Redis {@link Benchmarks} started; the scenarios are {@link ApiScenarios}'. Each row's costs come from counters
 * ({@link RedisCounters}): the script calls per operation and the CPU time of Redis and of this JVM per operation.
 *
 * <p>
 * Options: {@code --threads=16 --seconds=2 --rounds=3 --warmup=1}, and {@code --only=<text>} to measure only the
 * scenarios whose name contains the text (the units of the ratios always run: {@code PING} and the lesson's script
 * on 1,000 admitting keys, and {@code PING} alone with the scenarios of one caller alone). See
 * {@code docs/BENCHMARKS.md}.
 */
public final class JavaApiBenchmark {

	/** One operation of a scenario; {@code random} is the calling thread's. */
	interface Operation {

		/** @return whether it was admitted (for scenarios without a decision, true) */
		boolean run(ThreadLocalRandom random);

	}

	/** A scenario on {@code threads} threads, or on {@code --threads} when 0. */
	record Scenario(String name, int threads, Operation operation) {

		/** On {@code --threads}. */
		Scenario(String name, Operation operation) {
			this(name, 0, operation);
		}

	}

	/**
	 * Per operation: {@code scriptCalls}, the script calls Redis ran ({@code EVALSHA} and {@code EVAL}: 1 where each
	 * decision is a call of its own, less where decisions share one); {@code redisCpuMicros}, the CPU time of the Redis
	 * server (user and system), in µs; {@code jvmCpuMicros}, that of this JVM (the callers, the Redis clients, the
	 * in-memory limiter), in µs.
	 */
	record Measurement(double opsPerSecond, double p50Micros, double p99Micros, double admittedShare,
			double scriptCalls, double redisCpuMicros, double jvmCpuMicros) {
	}

	private JavaApiBenchmark() {
	}

	/** This part's options, read before anything runs. */
	record Settings(int threads, int seconds, int rounds, int warmup, String only) {

		/** @throws IllegalArgumentException for a value out of range */
		static Settings of(Options options) {
			return new Settings(JavaApiBenchmark.threads(options), options.number("seconds", 2, 1, 3600),
					options.number("rounds", 3, 1, 100), options.number("warmup", 1, 0, 3600), options.text("only", ""));
		}

	}

	/**
	 * Runs the scenarios {@code --only} selects in interleaved rounds on {@code redis} (read through {@code jedis}),
	 * prints the tables and returns the medians.
	 */
	static Map<String, Measurement> run(Settings settings, TestRedis redis, JedisPooled jedis) throws Exception {
		int seconds = settings.seconds();
		int rounds = settings.rounds();
		int warmup = settings.warmup();
		System.out.printf(Locale.ROOT, "%nJava API: %d threads, %d rounds of %d s per scenario%n", settings.threads(),
				rounds, seconds);
		try (LettuceLimiter lettuce = new LettuceLimiter(redis.host(), redis.port())) {
			List<Scenario> scenarios = selected(ApiScenarios.all(jedis, lettuce), settings.only());
			Map<String, List<Measurement>> results = Table.interleaved(scenarios, Scenario::name, rounds, warmup > 0,
					"", (scenario, warmUp) -> measure(scenario,
							(scenario.threads() > 0) ? scenario.threads() : settings.threads(),
							warmUp ? warmup : seconds, jedis));
			Map<String, Measurement> medians = new LinkedHashMap<>();
			results.forEach((name, measured) -> medians.put(name, new Measurement(
					Table.median(measured, Measurement::opsPerSecond), Table.median(measured, Measurement::p50Micros),
					Table.median(measured, Measurement::p99Micros), Table.median(measured, Measurement::admittedShare),
					Table.median(measured, Measurement::scriptCalls), Table.median(measured, Measurement::redisCpuMicros),
					Table.median(measured, Measurement::jvmCpuMicros))));
			print(medians);
			RedisFootprint.print(jedis);
			return medians;
		}
	}

	/**
	 * The scenarios whose name contains {@code only}, and the units of their ratios: {@code PING}, the lesson's script
	 * on 1,000 admitting keys, and {@code PING} alone when a scenario of one caller alone is selected.
	 */
	static List<Scenario> selected(List<Scenario> all, String only) {
		boolean alone = all.stream()
			.anyMatch((scenario) -> scenario.name().contains(only) && scenario.name().contains(ApiScenarios.ALONE));
		return all.stream()
			.filter((scenario) -> scenario.name().contains(only) || scenario.name().equals(ApiScenarios.PING)
					|| scenario.name().equals(ApiScenarios.LESSON)
					|| (alone && scenario.name().equals(ApiScenarios.PING_ALONE)))
			.toList();
	}

	/** Threads calling Redis, and so connections of the pool. */
	static int threads(Options options) {
		return options.number("threads", 16, 1, 256);
	}

	static String version(String info) {
		int at = info.indexOf("redis_version:");
		if (at < 0) {
			return "?";
		}
		int end = at + 14;
		while (end < info.length() && !Character.isWhitespace(info.charAt(end))) {
			end++;
		}
		return info.substring(at + 14, end);
	}

	/**
	 * Runs {@code scenario} on {@code threads} threads for {@code seconds}; latencies in a histogram of 0.1 µs buckets
	 * up to 20 ms (longer ones count as 20 ms).
	 */
	private static Measurement measure(Scenario scenario, int threads, int seconds, JedisPooled jedis)
			throws InterruptedException {
		long scriptCallsBefore = RedisCounters.scriptCalls(jedis);
		double cpuBefore = RedisCounters.redisCpuSeconds(jedis);
		long jvmCpuBefore = RedisCounters.jvmCpuNanos();
		int buckets = 200_000;
		long[][] histograms = new long[threads][buckets + 1];
		long[] operations = new long[threads];
		long[] admitted = new long[threads];
		AtomicBoolean running = new AtomicBoolean(true);
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int index = t;
			Thread worker = new Thread(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				long[] histogram = histograms[index];
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					return;
				}
				while (running.get()) {
					long began = System.nanoTime();
					boolean allowed = scenario.operation().run(random);
					long tenths = (System.nanoTime() - began) / 100;
					histogram[(int) Math.min(tenths, buckets)]++;
					operations[index]++;
					if (allowed) {
						admitted[index]++;
					}
				}
			}, "bench-" + t);
			worker.start();
			workers.add(worker);
		}
		long began = System.nanoTime();
		start.countDown();
		Thread.sleep(seconds * 1000L);
		running.set(false);
		for (Thread worker : workers) {
			worker.join();
		}
		double elapsed = (System.nanoTime() - began) / 1e9;
		long total = 0;
		long allowed = 0;
		long[] merged = new long[buckets + 1];
		for (int t = 0; t < threads; t++) {
			total += operations[t];
			allowed += admitted[t];
			for (int b = 0; b <= buckets; b++) {
				merged[b] += histograms[t][b];
			}
		}
		long jvmCpu = RedisCounters.jvmCpuNanos() - jvmCpuBefore;
		double cpu = RedisCounters.redisCpuSeconds(jedis) - cpuBefore;
		long scriptCalls = RedisCounters.scriptCalls(jedis) - scriptCallsBefore;
		long ops = Math.max(total, 1);
		return new Measurement(total / elapsed, percentile(merged, total, 0.50), percentile(merged, total, 0.99),
				(double) allowed / ops, (double) scriptCalls / ops, cpu * 1e6 / ops, jvmCpu / 1e3 / ops);
	}

	/** The quantile in µs. */
	private static double percentile(long[] histogram, long total, double quantile) {
		long rank = (long) Math.ceil(quantile * total);
		long seen = 0;
		for (int tenths = 0; tenths < histogram.length; tenths++) {
			seen += histogram[tenths];
			if (seen >= rank) {
				return tenths / 10.0;
			}
		}
		return (histogram.length - 1) / 10.0;
	}

	@SuppressWarnings("NullAway") // every run measures PING
	private static void print(Map<String, Measurement> medians) {
		double ping = medians.get(ApiScenarios.PING).opsPerSecond();
		System.out.println();
		String header = "| %-70s | %12s | %8s | %8s | %8s | %9s | %15s | %13s | %11s |%n";
		System.out.printf(Locale.ROOT, header, "scenario", "ops/s", "x PING", "p50 µs", "p99 µs", "admitted",
				"script calls/op", "Redis CPU µs", "JVM CPU µs");
		System.out.printf(Locale.ROOT, header, "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:");
		medians.forEach((name, m) -> System.out.printf(Locale.ROOT,
				"| %-70s | %12.0f | %8.2f | %8.1f | %8.1f | %8.1f%% | %15s | %13.1f | %11.1f |%n", name,
				m.opsPerSecond(), m.opsPerSecond() / ping, m.p50Micros(), m.p99Micros(), 100 * m.admittedShare(),
				scriptCalls(m.scriptCalls()), m.redisCpuMicros(), m.jvmCpuMicros()));
	}

	/** "-" for a scenario that made no script call ({@code PING}, in memory). */
	static String scriptCalls(double perOperation) {
		return (perOperation == 0) ? "-" : String.format(Locale.ROOT, "%.2f", perOperation);
	}

}
