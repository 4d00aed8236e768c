package dev.ratelimit.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;

/**
 * Runs one traffic pattern through the application's {@link RateLimiter} for the four algorithms at once, with
 * explicit time from {@link ReferenceComparison#T0} and a client of the run's own (so that no other traffic shares
 * its state), and resets that client's state afterwards. The boundary burst and the steady overload are the two
 * experiments of {@code docs/ALGORITHMS.md}: with limit 10 per 1 s and cost 1 their numbers are {@code --compare}'s.
 */
final class Playground {

	/** Bounded work per run: at most this many requests per algorithm. */
	static final int MAX_REQUESTS = 2_000;

	/** Bounded work per run: traffic spans at most this long (ms of explicit time). */
	static final long MAX_SPAN_MS = 60_000;

	/** What to send: the arrival times, ms after T0, sorted. */
	record Traffic(String pattern, long[] offsetsMs) {
	}

	/** One request of one algorithm: when, whether admitted, and the Retry-After a denial would send (s). */
	record Request(long atMs, boolean allowed, long retryAfterMs, Long retryAfterSeconds) {
	}

	/** One algorithm's run: every request, the totals, the most admitted in any window span. */
	record AlgorithmRun(String algorithm, String name, long limit, long capacity, int admitted, int denied,
			int mostInAnyWindow, List<Request> requests) {
	}

	record Run(String pattern, long limit, long windowMs, long capacity, long cost, int requests, long spanMs,
			List<AlgorithmRun> algorithms) {
	}

	private final RateLimiter limiter;

	Playground(RateLimiter limiter) {
		this.limiter = limiter;
	}

	/** The spec's boundary burst for window W: 15 requests at W - 10 ms, 15 at W + 10 ms. */
	static Traffic boundaryBurst(long windowMs) {
		long[] offsets = new long[30];
		for (int i = 0; i < 30; i++) {
			offsets[i] = (i < 15) ? windowMs - 10 : windowMs + 10;
		}
		return new Traffic("boundary-burst", offsets);
	}

	/** The spec's steady overload: the 200 offsets of its fixture. */
	static Traffic steadyOverload() {
		return new Traffic("steady-overload", ReferenceComparison.fixtureOffsets());
	}

	/** {@code count} requests at once, {@code atMs} after T0. */
	static Traffic burst(int count, long atMs) {
		long[] offsets = new long[count];
		java.util.Arrays.fill(offsets, atMs);
		return new Traffic("burst", offsets);
	}

	/** {@code perSecond} requests a second, evenly spaced, for {@code seconds}. */
	static Traffic rate(double perSecond, int seconds) {
		int count = (int) Math.round(perSecond * seconds);
		long[] offsets = new long[count];
		for (int i = 0; i < count; i++) {
			offsets[i] = Math.round(i * 1000.0 / perSecond);
		}
		return new Traffic("rate", offsets);
	}

	/**
	 * @throws IllegalArgumentException as {@link LimitDefinition} rejects the shape, naming the field
	 */
	Run run(long limit, Duration window, long capacity, long cost, Traffic traffic) {
		String client = "playground:" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
		List<LimitDefinition> definitions = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			long own = (algorithm == Algorithm.TOKEN_BUCKET) ? capacity : limit;
			definitions.add(new LimitDefinition("playground-" + code(algorithm), algorithm, limit, window, own, cost)
				.requireCostFits());
		}
		List<AlgorithmRun> runs = new ArrayList<>();
		try {
			for (LimitDefinition definition : definitions) {
				runs.add(run(client, definition, traffic));
			}
		}
		finally {
			this.limiter.reset(client, definitions);
		}
		long[] offsets = traffic.offsetsMs();
		long span = (offsets.length == 0) ? 0 : offsets[offsets.length - 1] - offsets[0];
		return new Run(traffic.pattern(), limit, window.toMillis(), capacity, cost, offsets.length, span, runs);
	}

	private AlgorithmRun run(String client, LimitDefinition limit, Traffic traffic) {
		List<Request> requests = new ArrayList<>();
		List<Long> admitted = new ArrayList<>();
		for (long offset : traffic.offsetsMs()) {
			LimitDecision decision = this.limiter.tryAcquire(client, limit, ReferenceComparison.T0 + offset)
				.decisions()
				.get(0);
			if (decision.allowed()) {
				admitted.add(offset);
				requests.add(new Request(offset, true, 0, null));
			}
			else {
				requests.add(new Request(offset, false, decision.retryAfterMs(),
						decision.never() ? null : Math.max(1, Math.floorDiv(decision.retryAfterMs() + 999, 1000))));
			}
		}
		return new AlgorithmRun(code(limit.algorithm()), limit.algorithm().name().toLowerCase(Locale.ROOT).replace('_', ' '),
				limit.limit(), limit.capacity(), admitted.size(), requests.size() - admitted.size(),
				mostInAnyWindow(admitted, limit.windowMs()), requests);
	}

	/**
	 * Most admitted in any {@code [s, s + window)} for s = 0, 5, 10, ... up to the last request, as the spec slides its
	 * window (for the steady overload: s = T0, T0 + 5, ..., T0 + 8995).
	 */
	static int mostInAnyWindow(List<Long> admitted, long windowMs) {
		if (admitted.isEmpty()) {
			return 0;
		}
		long last = admitted.get(admitted.size() - 1);
		int most = 0;
		for (long start = 0; start <= Math.max(last, 8995); start += 5) {
			long from = start;
			most = Math.max(most, (int) admitted.stream().filter((t) -> t >= from && t < from + windowMs).count());
		}
		return most;
	}

	private static String code(Algorithm algorithm) {
		return algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
