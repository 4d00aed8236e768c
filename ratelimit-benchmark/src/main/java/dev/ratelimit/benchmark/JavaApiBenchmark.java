package dev.ratelimit.benchmark;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import redis.clients.jedis.JedisPooled;

/**
 * Decisions per second through the Java API, for both backends, against {@code PING} (the floor of one Redis round
 * trip) and a minimal one-command script, in one interleaved run: every round measures every scenario once, so a
 * machine that gets busier slows all of them alike, and the table shows medians over the rounds. It runs on the
 * Redis {@link Benchmarks} started.
 *
 * <p>
 * Options: {@code --threads=16 --seconds=2 --rounds=3 --warmup=1}, and {@code --only=<text>} to measure only the
 * scenarios whose name contains the text ({@code PING} always runs: it is the unit of the ratios). See
 * {@code docs/BENCHMARKS.md}.
 */
public final class JavaApiBenchmark {

	/** One operation of a scenario; {@code random} is the calling thread's. */
	interface Operation {

		/** @return whether it was admitted (for scenarios without a decision, true) */
		boolean run(ThreadLocalRandom random);

	}

	record Scenario(String name, Operation operation) {
	}

	/** {@code redisCpuMicros}: CPU time of the Redis server (user and system) per operation, in µs. */
	record Measurement(double opsPerSecond, double p50Micros, double p99Micros, double admittedShare,
			double redisCpuMicros) {
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

	/** Runs every scenario in interleaved rounds on {@code jedis}, prints the tables and returns the medians. */
	static Map<String, Measurement> run(Settings settings, JedisPooled jedis) throws Exception {
		int threads = settings.threads();
		int seconds = settings.seconds();
		int rounds = settings.rounds();
		int warmup = settings.warmup();
		String only = settings.only();
		System.out.printf(Locale.ROOT, "%nJava API: %d threads, %d rounds of %d s per scenario%n", threads, rounds, seconds);
		List<Scenario> scenarios = scenarios(jedis).stream()
			.filter((scenario) -> scenario.name().equals("PING") || scenario.name().contains(only))
			.toList();
		Map<String, List<Measurement>> results = Table.interleaved(scenarios, Scenario::name, rounds, warmup > 0, "",
				(scenario, warmUp) -> measure(scenario, threads, warmUp ? warmup : seconds, jedis));
		Map<String, Measurement> medians = new LinkedHashMap<>();
		results.forEach((name, measured) -> medians.put(name, new Measurement(
				Table.median(measured, Measurement::opsPerSecond), Table.median(measured, Measurement::p50Micros),
				Table.median(measured, Measurement::p99Micros), Table.median(measured, Measurement::admittedShare),
				Table.median(measured, Measurement::redisCpuMicros))));
		print(medians);
		RedisFootprint.print(jedis);
		return medians;
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

	private static List<Scenario> scenarios(JedisPooled jedis) {
		List<Scenario> scenarios = new ArrayList<>();
		scenarios.add(new Scenario("PING", (random) -> "PONG".equals(jedis.ping())));
		String exists = "return redis.call('EXISTS', KEYS[1])";
		String sha = jedis.scriptLoad(exists);
		scenarios.add(new Scenario("EVALSHA of one command (EXISTS)",
				(random) -> jedis.evalsha(sha, List.of("bench:exists"), List.of()) != null));
		RateLimiter onRedis = new RedisRateLimiter(new JedisScriptExecutor(jedis), "bench:");
		RateLimiter inMemory = new InMemoryRateLimiter();
		LessonScript lesson = new LessonScript(jedis);
		for (boolean admitted : new boolean[] { true, false }) {
			for (int keys : new int[] { 1, 1000 }) {
				String shape = ((keys == 1) ? "1 hot key" : keys + " keys") + ", " + (admitted ? "admitting" : "denying");
				String[] clients = clients(keys);
				scenarios.add(new Scenario("lesson's token-bucket script, " + shape,
						(random) -> lesson.decide("bench:lesson:" + (admitted ? "admit:" : "deny:")
								+ clients[random.nextInt(keys)], admitted)));
			}
		}
		for (boolean admitted : new boolean[] { true, false }) {
			for (int keys : new int[] { 1, 1000 }) {
				String shape = ((keys == 1) ? "1 hot key" : keys + " keys") + ", " + (admitted ? "admitting" : "denying");
				Bucket4jScenario bucket4j = new Bucket4jScenario(jedis, clients(keys), admitted);
				scenarios.add(new Scenario("bucket4j  token-bucket (Jedis, CAS), " + shape,
						(random) -> bucket4j.decide(random.nextInt(keys))));
			}
		}
		// the token bucket called as the lesson's script is: the time passed in by the caller, no TIME in Redis
		RateLimiter callersTime = onRedis.withClock(InstantSource.system());
		for (int keys : new int[] { 1, 1000 }) {
			List<LimitRequest> one = List.of(limit(Algorithm.TOKEN_BUCKET, true).request());
			String[] clients = clients(keys);
			scenarios.add(new Scenario("redis     token-bucket, time from the caller, " + ((keys == 1) ? "1 hot key" : keys + " keys")
					+ ", admitting", (random) -> callersTime.tryAcquire(clients[random.nextInt(keys)], one).allowed()));
		}
		for (int keys : new int[] { 1, 1000 }) {
			List<LimitRequest> two = List.of(limit(Algorithm.TOKEN_BUCKET, true).request(),
					LimitDefinition.of("bench-second", Algorithm.SLIDING_WINDOW_COUNTER, 1_000_000_000, Duration.ofHours(1))
						.request());
			String[] clients = clients(keys);
			scenarios.add(new Scenario("redis     token-bucket + sliding-window-counter, " + ((keys == 1) ? "1 hot key" : keys + " keys")
					+ ", admitting", (random) -> onRedis.tryAcquire(clients[random.nextInt(keys)], two).allowed()));
		}
		// a concurrency limit: a call's lease taken and given back (two script calls), against one rate decision above
		LimitDefinition roomy = LimitDefinition.of("bench-leases", Algorithm.CONCURRENCY, 1_000_000, Duration.ofSeconds(30));
		// full: one lease held for an hour by the first call, every other denied
		LimitDefinition full = LimitDefinition.of("bench-leases-full", Algorithm.CONCURRENCY, 1, Duration.ofHours(1));
		for (int keys : new int[] { 1, 1000 }) {
			String shape = (keys == 1) ? "1 hot key" : keys + " keys";
			for (RateLimiter limiter : List.of(onRedis, inMemory)) {
				String backend = (limiter == onRedis) ? "redis     " : "in-memory ";
				scenarios.add(new Scenario(backend + "concurrency, acquire + release, " + shape,
						leaseTaken(limiter, roomy, clients(keys), true)));
				scenarios.add(new Scenario(backend + "concurrency, " + shape + ", denying",
						leaseTaken(limiter, full, clients(keys), false)));
			}
		}
		for (Algorithm algorithm : Algorithm.rates()) {
			for (boolean admitted : new boolean[] { true, false }) {
				LimitDefinition limit = limit(algorithm, admitted);
				for (int keys : new int[] { 1, 1000 }) {
					String shape = algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-') + ", "
							+ ((keys == 1) ? "1 hot key" : keys + " keys") + ", " + (admitted ? "admitting" : "denying");
					scenarios.add(new Scenario("redis     " + shape, decide(onRedis, limit, keys)));
					scenarios.add(new Scenario("in-memory " + shape, decide(inMemory, limit, keys)));
				}
			}
		}
		return scenarios;
	}

	/**
	 * Admitting: a limit no benchmark reaches (the sliding log's largest limit over 1 ms, as it keeps one entry per
	 * unit). Denying: 1 per hour, so that all but a client's first request are denied.
	 */
	private static LimitDefinition limit(Algorithm algorithm, boolean admitted) {
		String name = "bench-" + (admitted ? "admit" : "deny");
		if (!admitted) {
			return LimitDefinition.of(name, algorithm, 1, Duration.ofHours(1));
		}
		if (algorithm == Algorithm.SLIDING_LOG) {
			return LimitDefinition.of(name, algorithm, LimitDefinition.MAX_SLIDING_LOG_LIMIT, Duration.ofMillis(1));
		}
		return LimitDefinition.of(name, algorithm, 1_000_000_000, Duration.ofSeconds(1));
	}

	private static Operation decide(RateLimiter limiter, LimitDefinition limit, int keys) {
		List<LimitRequest> one = List.of(limit.request());
		if (keys == 1) {
			return (random) -> limiter.tryAcquire("hot", one).allowed();
		}
		String[] clients = clients(keys);
		return (random) -> limiter.tryAcquire(clients[random.nextInt(keys)], one).allowed();
	}

	/**
	 * A call's acquire of a lease with an id of its own, and with {@code giveBack} its release when admitted (a
	 * denied call holds none); without, an admitted call keeps its lease, so that the limit stays full.
	 */
	private static Operation leaseTaken(RateLimiter limiter, LimitDefinition limit, String[] clients,
			boolean giveBack) {
		return (random) -> {
			String client = clients[random.nextInt(clients.length)];
			LimitRequest lease = limit.request().withLease(LimitRequest.newLeaseId());
			boolean admitted = limiter.tryAcquire(client, List.of(lease)).allowed();
			if (admitted && giveBack) {
				limiter.settle(client, List.of(Settlement.release(lease)));
			}
			return admitted;
		};
	}

	/** {@code hot} alone, or {@code client-0} ... */
	static String[] clients(int keys) {
		if (keys == 1) {
			return new String[] { "hot" };
		}
		String[] clients = new String[keys];
		for (int i = 0; i < keys; i++) {
			clients[i] = "client-" + i;
		}
		return clients;
	}

	/**
	 * Runs {@code scenario} on {@code threads} threads for {@code seconds}; latencies in a histogram of 0.1 µs buckets
	 * up to 20 ms (longer ones count as 20 ms).
	 */
	private static Measurement measure(Scenario scenario, int threads, int seconds, JedisPooled jedis)
			throws InterruptedException {
		double cpuBefore = redisCpuSeconds(jedis);
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
		double cpu = redisCpuSeconds(jedis) - cpuBefore;
		return new Measurement(total / elapsed, percentile(merged, total, 0.50), percentile(merged, total, 0.99),
				(total == 0) ? 0 : (double) allowed / total, (total == 0) ? 0 : cpu * 1e6 / total);
	}

	/** The Redis server's CPU time so far ({@code INFO cpu}: used_cpu_user + used_cpu_sys), in s. */
	public static double redisCpuSeconds(JedisPooled jedis) {
		double seconds = 0;
		for (String line : jedis.info("cpu").split("\r?\n")) {
			if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
				seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return seconds;
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
		double ping = medians.get("PING").opsPerSecond();
		System.out.println();
		System.out.printf(Locale.ROOT, "| %-66s | %12s | %8s | %8s | %8s | %9s | %13s |%n", "scenario", "ops/s",
				"x PING", "p50 µs", "p99 µs", "admitted", "Redis CPU µs");
		System.out.printf(Locale.ROOT, "| %-66s | %12s | %8s | %8s | %8s | %9s | %13s |%n", "---", "---:", "---:",
				"---:", "---:", "---:", "---:");
		medians.forEach((name, m) -> System.out.printf(Locale.ROOT,
				"| %-66s | %12.0f | %8.2f | %8.1f | %8.1f | %8.1f%% | %13.1f |%n", name, m.opsPerSecond(),
				m.opsPerSecond() / ping, m.p50Micros(), m.p99Micros(), 100 * m.admittedShare(), m.redisCpuMicros()));
	}

}
