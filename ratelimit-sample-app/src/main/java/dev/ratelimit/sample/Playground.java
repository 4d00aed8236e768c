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
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimiter;
import org.jspecify.annotations.Nullable;

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

	/**
	 * One request of one algorithm: when (ms after T0), whether admitted, its retry-after in ms ({@link #NEVER}: it
	 * can never be admitted), and the Retry-After a denial would send (s; none for never).
	 */
	record Request(long atMs, boolean allowed, long retryAfterMs, @Nullable Long retryAfterSeconds) {

		/** {@code retryAfterMs} of a request that can never be admitted, as the playground's JSON has it. */
		static final long NEVER = -1;

	}

	/** One algorithm's run: every request, the totals, the most units admitted in any window span. */
	record AlgorithmRun(String algorithm, String name, long limit, long capacity, int admitted, int denied,
			int mostInAnyWindow, List<Request> requests) {
	}

	/**
	 * @param firstEdgeMs ms after T0 of the first fixed-window edge (fixed windows start at multiples of the window
	 * since the epoch)
	 */
	record Run(String pattern, long limit, long windowMs, long capacity, long cost, int requests, long spanMs,
			long firstEdgeMs, List<AlgorithmRun> algorithms) {
	}

	private final RateLimiter limiter;

	Playground(RateLimiter limiter) {
		this.limiter = limiter;
	}

	/**
	 * The spec's boundary burst for window W: 15 requests just before a fixed window's edge and 15 just after it,
	 * d = W / 100 ms either side (10 ms for 1 s, at least 1 ms, at most 10 ms). The edge is the first one at least W
	 * after T0 (fixed windows start at multiples of W since the epoch, not at T0): T0 + 1000 for 1 s, as in the spec.
	 */
	static Traffic boundaryBurst(long windowMs) {
		long edge = firstEdgeOffset(windowMs) + windowMs;
		long d = Math.max(1, Math.min(10, windowMs / 100));
		long[] offsets = new long[30];
		for (int i = 0; i < 30; i++) {
			offsets[i] = (i < 15) ? edge - d : edge + d;
		}
		return new Traffic("boundary-burst", offsets);
	}

	/** Ms from T0 to the first fixed-window edge at or after it: where the fixed window's windows start. */
	static long firstEdgeOffset(long windowMs) {
		return Math.floorMod(-ReferenceComparison.T0, windowMs);
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
		List<LimitRequest> requests = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.rates()) {
			long own = (algorithm == Algorithm.TOKEN_BUCKET) ? capacity : limit;
			LimitDefinition definition = new LimitDefinition("playground-" + code(algorithm), algorithm, limit, window,
					own);
			definitions.add(definition);
			requests.add(definition.request(cost).requireCostFits());
		}
		List<AlgorithmRun> runs = new ArrayList<>();
		try {
			for (LimitRequest request : requests) {
				runs.add(run(client, request, traffic));
			}
		}
		finally {
			this.limiter.reset(client, definitions);
		}
		long[] offsets = traffic.offsetsMs();
		long span = (offsets.length == 0) ? 0 : offsets[offsets.length - 1] - offsets[0];
		return new Run(traffic.pattern(), limit, window.toMillis(), capacity, cost, offsets.length, span,
				firstEdgeOffset(window.toMillis()), runs);
	}

	private AlgorithmRun run(String client, LimitRequest request, Traffic traffic) {
		LimitDefinition limit = request.definition();
		List<Request> requests = new ArrayList<>();
		List<Long> admitted = new ArrayList<>();
		for (long offset : traffic.offsetsMs()) {
			// a limiter of its own at the traffic's time, on the application's store
			LimitDecision decision = ReferenceComparison.at(this.limiter, ReferenceComparison.T0 + offset)
				.tryAcquire(client, request)
				.decisions()
				.get(0);
			if (decision.allowed()) {
				admitted.add(offset);
				requests.add(new Request(offset, true, 0, null));
			}
			else {
				requests.add(new Request(offset, false, decision.retryAfterMs().orElse(Request.NEVER), decision.never()
						? null : Math.max(1, Math.floorDiv(decision.retryAfterMs().getAsLong() + 999, 1000))));
			}
		}
		return new AlgorithmRun(code(limit.algorithm()), limit.algorithm().name().toLowerCase(Locale.ROOT).replace('_', ' '),
				limit.limit(), limit.capacity(), admitted.size(), requests.size() - admitted.size(),
				mostInAnyWindow(admitted, limit.windowMs()) * (int) request.cost(), requests);
	}

	/**
	 * Most admitted in any {@code [s, s + window)} for s = 0, 5, 10, ... ms after T0, as the spec slides its window
	 * (for the steady overload: s = T0, T0 + 5, ..., T0 + 8995), or every ms for windows under 5 ms. The best s is
	 * always the step just at or before an admitted request (moving s up to it loses nothing on the left), so one pass
	 * over the sorted times finds it: the work grows with the requests, not with the window.
	 * @param admitted the admitted requests' times, ms after T0, sorted, not negative
	 */
	static int mostInAnyWindow(List<Long> admitted, long windowMs) {
		long step = Math.min(5, windowMs);
		int most = 0;
		int end = 0;
		for (int first = 0; first < admitted.size(); first++) {
			long start = admitted.get(first) / step * step;
			end = Math.max(end, first);
			while (end < admitted.size() && admitted.get(end) < start + windowMs) {
				end++;
			}
			most = Math.max(most, end - first);
		}
		return most;
	}

	private static String code(Algorithm algorithm) {
		return algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
