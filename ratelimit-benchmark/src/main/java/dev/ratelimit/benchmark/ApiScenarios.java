package dev.ratelimit.benchmark;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.ratelimit.benchmark.JavaApiBenchmark.Operation;
import dev.ratelimit.benchmark.JavaApiBenchmark.Scenario;
import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import redis.clients.jedis.JedisPooled;

/**
 * The scenarios of {@link JavaApiBenchmark}, named so that {@code --only} picks sets of them: the text before the
 * first comma names what decides ({@code redis} is {@link RedisRateLimiter} on Jedis, {@code lettuce} on the
 * starter's Lettuce executor, {@code in-memory}, {@code bucket4j}, the {@code lesson's} script), then the algorithm,
 * the keys ({@code 1 hot key}, {@code 1000 keys}), {@code 1 caller alone} for one thread, and whether it is
 * {@code admitting} or {@code denying}.
 */
final class ApiScenarios {

	/** The unit of the ratios, measured whatever {@code --only} says. */
	static final String PING = "PING";

	/** The lesson's script on the issue's scenario: the unit of its targets, measured whatever {@code --only} says. */
	static final String LESSON = "lesson's token-bucket script, 1000 keys, admitting";

	/** What the name of every scenario on one thread holds. */
	static final String ALONE = "1 caller alone";

	/** The unit of the scenarios on one thread, measured whenever one of them is. */
	static final String PING_ALONE = "PING, " + ALONE;

	/** The rows of decisions each sent alone, whatever else is in flight. */
	static final String WITHOUT_BATCHES = "without batches";

	/** One command in a script, as the http part's {@code /script} endpoint runs it on the limiter's client. */
	private static final LuaScript ONE_COMMAND = LuaScript.of("return { redis.call('EXISTS', KEYS[1]) }");

	private ApiScenarios() {
	}

	/** Every scenario, in the order of the table. */
	static List<Scenario> all(JedisPooled jedis, LettuceLimiter lettuce) {
		List<Scenario> scenarios = new ArrayList<>();
		scenarios.add(new Scenario(PING, (random) -> "PONG".equals(jedis.ping())));
		String exists = "return redis.call('EXISTS', KEYS[1])";
		String sha = jedis.scriptLoad(exists);
		scenarios.add(new Scenario("EVALSHA of one command (EXISTS)",
				(random) -> jedis.evalsha(sha, List.of("bench:exists"), List.of()) != null));
		RateLimiter onRedis = new RedisRateLimiter(new JedisScriptExecutor(jedis), "bench:");
		RateLimiter inMemory = new InMemoryRateLimiter();
		LessonScript lesson = new LessonScript(jedis);
		for (boolean admitted : new boolean[] { true, false }) {
			for (int keys : new int[] { 1, 1000 }) {
				String[] clients = clients(keys);
				scenarios.add(new Scenario("lesson's token-bucket script, " + shape(keys, admitted),
						(random) -> lesson.decide("bench:lesson:" + (admitted ? "admit:" : "deny:")
								+ clients[random.nextInt(keys)], admitted)));
			}
		}
		for (boolean admitted : new boolean[] { true, false }) {
			for (int keys : new int[] { 1, 1000 }) {
				Bucket4jScenario bucket4j = new Bucket4jScenario(jedis, clients(keys), admitted);
				scenarios.add(new Scenario("bucket4j  token-bucket (Jedis, CAS), " + shape(keys, admitted),
						(random) -> bucket4j.decide(random.nextInt(keys))));
			}
		}
		// the token bucket called as the lesson's script is: the time passed in by the caller, no TIME in Redis
		RateLimiter callersTime = onRedis.withClock(InstantSource.system());
		for (int keys : new int[] { 1, 1000 }) {
			scenarios.add(new Scenario("redis     token-bucket, time from the caller, " + shape(keys, true),
					decide(callersTime, List.of(limit(Algorithm.TOKEN_BUCKET, true).request()), keys)));
		}
		for (int keys : new int[] { 1, 1000 }) {
			scenarios.add(new Scenario("redis     token-bucket + sliding-window-counter, " + shape(keys, true),
					decide(onRedis, twoLimits(), keys)));
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
				List<LimitRequest> one = List.of(limit(algorithm, admitted).request());
				for (int keys : new int[] { 1, 1000 }) {
					String shape = name(algorithm) + ", " + shape(keys, admitted);
					scenarios.add(new Scenario("redis     " + shape, decide(onRedis, one, keys)));
					scenarios.add(new Scenario("in-memory " + shape, decide(inMemory, one, keys)));
				}
			}
		}
		scenarios.addAll(issue51(jedis, onRedis, lettuce));
		return scenarios;
	}

	/**
	 * What the targets of issue 51 (decisions that share a script call) add: the token bucket through the starter's
	 * Lettuce executor, as the starter calls it ({@code tryAcquireAsync}, waited for), on 1,000 keys, one hot key and
	 * with two limits, its floors on that client, and one caller alone on either client beside {@code PING} alone.
	 */
	private static List<Scenario> issue51(JedisPooled jedis, RateLimiter onRedis, LettuceLimiter lettuce) {
		RateLimiter onLettuce = lettuce.limiter("bench:lettuce:");
		List<LimitRequest> admitting = List.of(limit(Algorithm.TOKEN_BUCKET, true).request());
		List<LimitRequest> denying = List.of(limit(Algorithm.TOKEN_BUCKET, false).request());
		List<Scenario> scenarios = new ArrayList<>();
		scenarios.add(new Scenario(PING_ALONE, 1, (random) -> "PONG".equals(jedis.ping())));
		scenarios.add(new Scenario("redis     token-bucket, " + ALONE + ", " + shape(1000, true), 1,
				decide(onRedis, admitting, 1000)));
		Operation ping = (random) -> "PONG".equals(lettuce.ping());
		scenarios.add(new Scenario("lettuce   PING (a connection of its own)", ping));
		scenarios.add(new Scenario("lettuce   PING, " + ALONE, 1, ping));
		scenarios.add(new Scenario("lettuce   EVALSHA of one command (EXISTS)",
				(random) -> !lettuce.executor()
					.executeAsync(ONE_COMMAND, List.of("bench:exists"), List.of())
					.toCompletableFuture()
					.join()
					.isEmpty()));
		for (int keys : new int[] { 1, 1000 }) {
			scenarios.add(new Scenario("lettuce   token-bucket, " + shape(keys, true),
					decideAsync(onLettuce, admitting, keys)));
		}
		scenarios.add(new Scenario("lettuce   token-bucket, " + shape(1000, false), decideAsync(onLettuce, denying, 1000)));
		scenarios.add(new Scenario("lettuce   token-bucket + sliding-window-counter, " + shape(1000, true),
				decideAsync(onLettuce, twoLimits(), 1000)));
		scenarios.add(new Scenario("lettuce   token-bucket, " + ALONE + ", " + shape(1000, true), 1,
				decideAsync(onLettuce, admitting, 1000)));
		// every decision in a call of its own, as before decisions shared calls (RedisRateLimiter.withoutBatches):
		// the before and after of issue 51 in one run, on the same keys
		RateLimiter jedisAlone = new RedisRateLimiter(new JedisScriptExecutor(jedis), "bench:").withoutBatches();
		RateLimiter lettuceAlone = lettuce.limiter("bench:lettuce:").withoutBatches();
		for (int keys : new int[] { 1, 1000 }) {
			scenarios.add(new Scenario("redis     token-bucket, " + shape(keys, true) + ", " + WITHOUT_BATCHES,
					decide(jedisAlone, admitting, keys)));
			scenarios.add(new Scenario("lettuce   token-bucket, " + shape(keys, true) + ", " + WITHOUT_BATCHES,
					decideAsync(lettuceAlone, admitting, keys)));
		}
		scenarios.add(new Scenario("lettuce   token-bucket + sliding-window-counter, " + shape(1000, true) + ", "
				+ WITHOUT_BATCHES, decideAsync(lettuceAlone, twoLimits(), 1000)));
		return scenarios;
	}

	private static String shape(int keys, boolean admitted) {
		return ((keys == 1) ? "1 hot key" : keys + " keys") + ", " + (admitted ? "admitting" : "denying");
	}

	private static String name(Algorithm algorithm) {
		return algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/** Two limits in one decision: the admitting token bucket and a sliding window counter no run reaches. */
	private static List<LimitRequest> twoLimits() {
		return List.of(limit(Algorithm.TOKEN_BUCKET, true).request(),
				LimitDefinition.of("bench-second", Algorithm.SLIDING_WINDOW_COUNTER, 1_000_000_000, Duration.ofHours(1))
					.request());
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

	/** A blocking decision ({@code tryAcquire}) of a random one of {@code keys} clients. */
	private static Operation decide(RateLimiter limiter, List<LimitRequest> limits, int keys) {
		if (keys == 1) {
			return (random) -> limiter.tryAcquire("hot", limits).allowed();
		}
		String[] clients = clients(keys);
		return (random) -> limiter.tryAcquire(clients[random.nextInt(keys)], limits).allowed();
	}

	/** As the starter decides: {@code tryAcquireAsync}, the caller waiting for its answer. */
	private static Operation decideAsync(RateLimiter limiter, List<LimitRequest> limits, int keys) {
		if (keys == 1) {
			return (random) -> limiter.tryAcquireAsync("hot", limits).toCompletableFuture().join().allowed();
		}
		String[] clients = clients(keys);
		return (random) -> limiter.tryAcquireAsync(clients[random.nextInt(keys)], limits)
			.toCompletableFuture()
			.join()
			.allowed();
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

}
