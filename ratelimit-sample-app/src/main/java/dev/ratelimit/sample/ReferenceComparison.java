package dev.ratelimit.sample;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import org.jspecify.annotations.Nullable;

/**
 * The two experiments of {@code docs/ALGORITHMS.md} ("Reference results"), run through the application's
 * {@link RateLimiter} (on the Redis it uses, or in memory with {@code ratelimit.store=in-memory}), with explicit
 * time: limit 10 per 1 s (token bucket: capacity 10, 10 per second), cost 1, from {@code T0 = 1791860000000} ms. The
 * spec's tables are the expected output.
 *
 * <p>
 * On Redis, every run must use a key prefix of its own: the scripts never move stored time backwards, so state left
 * by an earlier run at the same explicit times would change the counts. In memory, every run starts from an empty
 * limiter of its own JVM.
 */
final class ReferenceComparison {

	static final long T0 = 1_791_860_000_000L;

	static final long LIMIT = 10;

	static final Duration WINDOW = Duration.ofSeconds(1);

	static final String FIXTURE = "steady-overload-offsets-ms.txt";

	private static final String CLIENT = "client";

	record BurstRow(Algorithm algorithm, int atFirst, int atSecond) {

		int total() {
			return this.atFirst + this.atSecond;
		}

	}

	/** {@code memory} is null when the limiter keeps no state in Redis. */
	record SteadyRow(Algorithm algorithm, int admitted, int mostInOneSecond, RedisInspector.@Nullable Memory memory) {
	}

	record Results(List<BurstRow> burst, int requests, List<SteadyRow> steady) {
	}

	private final RateLimiter limiter;

	private final @Nullable RedisInspector redis;

	private final String keyPrefix;

	/**
	 * @param limiter the application's limiter
	 * @param redis the Redis the limiter writes to, or null when it writes to none (the in-memory store): then no
	 * memory is measured and no key removed, the limiter's state expiring on its own
	 * @param keyPrefix the prefix the limiter writes under, used by no one else
	 */
	ReferenceComparison(RateLimiter limiter, @Nullable RedisInspector redis, String keyPrefix) {
		this.limiter = limiter;
		this.redis = redis;
		this.keyPrefix = keyPrefix;
	}

	/** Runs both experiments for the four algorithms, then removes the keys it wrote to Redis, if any. */
	Results run() {
		try {
			warmUp();
			List<BurstRow> burst = new ArrayList<>();
			for (Algorithm algorithm : Algorithm.rates()) {
				burst.add(boundaryBurst(algorithm));
			}
			long[] offsets = fixtureOffsets();
			List<SteadyRow> steady = new ArrayList<>();
			for (Algorithm algorithm : Algorithm.rates()) {
				steady.add(steadyOverload(algorithm, offsets));
			}
			return new Results(burst, offsets.length, steady);
		}
		finally {
			if (this.redis != null) {
				this.redis.delete(this.keyPrefix + "*");
			}
		}
	}

	/**
	 * On Redis, loads the script and opens the pooled connections; in either store, gets the JIT going before anything
	 * is counted.
	 * The boundary burst is sensitive to speed: explicit time stands still during its 15 requests while the keys'
	 * time to live runs on the server's clock, and the fixed window's key, written 10 ms before its window ends,
	 * lives 1010 ms (its window's end plus the scripts' 1 s margin).
	 */
	private void warmUp() {
		for (Algorithm algorithm : Algorithm.rates()) {
			admitted(limit("warm-up", algorithm), 20, T0);
		}
	}

	/** 15 requests at T0 + 990 ms, then 15 at T0 + 1010 ms, one client. */
	private BurstRow boundaryBurst(Algorithm algorithm) {
		LimitDefinition limit = limit("burst", algorithm);
		return new BurstRow(algorithm, admitted(limit, 15, T0 + 990), admitted(limit, 15, T0 + 1010));
	}

	/** One request at T0 + offset for each offset of the fixture; the memory in Redis is measured right after. */
	private SteadyRow steadyOverload(Algorithm algorithm, long[] offsets) {
		LimitDefinition limit = limit("steady", algorithm);
		List<Long> admitted = new ArrayList<>();
		for (long offset : offsets) {
			if (at(this.limiter, T0 + offset).tryAcquire(CLIENT, limit).allowed()) {
				admitted.add(T0 + offset);
			}
		}
		// The keys' time to live runs on the server's clock from the last write, at least ~350 ms for this
		// fixture: measure at once.
		RedisInspector.Memory memory = (this.redis != null)
				? this.redis.memory(this.keyPrefix + "*:" + limit.name() + ":*") : null;
		return new SteadyRow(algorithm, admitted.size(), mostInAnySecond(admitted), memory);
	}

	private int admitted(LimitDefinition limit, int requests, long nowMs) {
		RateLimiter limiter = at(this.limiter, nowMs);
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			if (limiter.tryAcquire(CLIENT, limit).allowed()) {
				admitted++;
			}
		}
		return admitted;
	}

	/**
	 * A limiter on {@code limiter}'s store deciding at {@code nowMs} rather than the store's time
	 * ({@link RateLimiter#withClock}): its decisions are its own, never remembered by the application's enforcement.
	 */
	static RateLimiter at(RateLimiter limiter, long nowMs) {
		return limiter.withClock(InstantSource.fixed(Instant.ofEpochMilli(nowMs)));
	}

	/** Most admitted in {@code [s, s + 1000)} for s = T0, T0 + 5, ..., T0 + 8995, as the spec defines it. */
	static int mostInAnySecond(List<Long> admitted) {
		int most = 0;
		for (long start = T0; start <= T0 + 8995; start += 5) {
			long from = start;
			most = Math.max(most, (int) admitted.stream().filter((t) -> t >= from && t < from + 1000).count());
		}
		return most;
	}

	/** A limit of its own per experiment and algorithm, so the runs do not share state. */
	private static LimitDefinition limit(String experiment, Algorithm algorithm) {
		return LimitDefinition.of(experiment + "-" + algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-'),
				algorithm, LIMIT, WINDOW);
	}

	/** The 200 offsets in ms of the spec's fixture, sorted, some repeated. */
	static long[] fixtureOffsets() {
		try (InputStream in = ReferenceComparison.class.getResourceAsStream("/" + FIXTURE)) {
			if (in == null) {
				throw new IllegalStateException(FIXTURE + " is missing from the classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
				.map(String::trim)
				.filter((line) -> !line.isEmpty())
				.mapToLong(Long::parseLong)
				.toArray();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
