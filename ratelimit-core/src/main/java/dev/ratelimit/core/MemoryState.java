package dev.ratelimit.core;

import org.jspecify.annotations.Nullable;

/**
 * The state of one limit of one client in {@link InMemoryRateLimiter}, and its decision: the logic of the Lua
 * script of its algorithm ({@code scripts/*.lua}), line for line, on Java {@code long}s. Every value stays below
 * 2^53 ({@link LimitDefinition} and {@link LimitRequest} bound them), so the arithmetic is the scripts' exact integer arithmetic.
 *
 * <p>
 * A state is "stored" once a request has been admitted against it, as a Redis key exists once a script has written
 * it. It expires as that key would: at {@link #deadline} on the store's clock, the script's relative TTL counted
 * from the write, as Redis counts it on its own clock. A request's time (another clock's) past that TTL does not
 * expire it, as it would not expire the Redis key: a request stepping back after it must still find the stored time
 * (rule 7 of {@code docs/ALGORITHMS.md}). Not thread-safe: the owning client's monitor guards it.
 */
abstract class MemoryState {

	/** The scripts' TTL margin ({@code TTL_MARGIN_MS} in common.lua). */
	static final long TTL_MARGIN_MS = 1000;

	boolean stored;

	/** When this state expires on the limiter's clock: the time of the last write plus its relative TTL. */
	long deadline;

	static MemoryState create(Algorithm algorithm) {
		return switch (algorithm) {
			case FIXED_WINDOW -> new MemoryFixedWindow();
			case SLIDING_LOG -> new MemorySlidingLog();
			case SLIDING_WINDOW_COUNTER -> new MemorySlidingWindowCounter();
			case TOKEN_BUCKET -> new MemoryTokenBucket();
			case CONCURRENCY -> new MemoryConcurrency();
		};
	}

	/** Whether the state is gone, as its Redis key would be, at {@code clockNow} on the limiter's clock. */
	final boolean expired(long clockNow) {
		return clockNow > this.deadline;
	}

	/**
	 * The decision at {@code now}; its {@link Verdict#commit()} writes an admitted request.
	 * @param now the script's {@code now}: the request's time in ms
	 * @param clockNow the store's clock in ms, from which relative TTLs count
	 * @param request the limit, and the cost of the request
	 */
	abstract Verdict decide(long now, long clockNow, LimitRequest request);

	/**
	 * The time a request at {@code now} is decided at (rule 7 of docs/ALGORITHMS.md): {@code now}, or the stored time
	 * when it is later; the script's {@code at}.
	 */
	abstract long decisionTime(long now, LimitDefinition limit);

	/**
	 * settle.lua's {@code settle}: charges {@code delta} units when above 0, even beyond the limit, or gives back
	 * {@code -delta} of those reserved at {@code reservedAt} when below 0 (docs/ALGORITHMS.md, "Settling a
	 * reservation").
	 * @param now the settlement's time in ms
	 * @param clockNow the store's clock in ms, from which relative TTLs count
	 * @return the fields after it
	 */
	abstract LimitDecision.Allowance settle(long now, long clockNow, LimitDefinition limit, long delta,
			long reservedAt);

	/**
	 * The most units a settled charge may leave in a state (common.lua's {@code idiv(MAX_SCALED, W) - 1}):
	 * {@code (n + 1) × W} stays below 2^52.
	 */
	static long maxUnits(long window) {
		return Math.floorDiv(LimitDefinition.EXACT_BOUND, window) - 1;
	}

	/** The fields of a settled state, {@code remaining} not below 0. */
	static LimitDecision.Allowance allowance(long remaining, long resetAfterMs, long moreAfterMs) {
		return new LimitDecision.Allowance(nonNegative(remaining), resetAfterMs, moreAfterMs);
	}

	/**
	 * Records the write of the state with the relative TTL that the script sets ({@code PEXPIRE} or
	 * {@code SET ... PX}, computed from the request's {@code now}), counted from {@code clockNow}.
	 */
	final void expireAfter(long ttlMs, long clockNow) {
		this.stored = true;
		this.deadline = clockNow + ttlMs;
	}

	/** {@code ceil(a / b)} for {@code a >= 0} and {@code b > 0} (common.lua's {@code idiv(a + b - 1, b)}). */
	static long ceilDiv(long a, long b) {
		return Math.floorDiv(a + b - 1, b);
	}

	static long nonNegative(long n) {
		return Math.max(n, 0);
	}

	/** A wait as a function of the cost that must fit. */
	interface Wait {

		long forCost(long cost);

	}

	/** common.lua's {@code more_after}: 0 when the allowance is full, else the wait until one more unit fits. */
	static long moreAfter(long remaining, long bound, Wait wait) {
		if (remaining >= bound) {
			return 0;
		}
		return wait.forCost(nonNegative(remaining) + 1);
	}

	/**
	 * One limit's verdict (common.lua's {@code denied} and {@code allowed}): its fields describe the state without
	 * this request until {@link #commit()} writes it and describes the state after.
	 */
	static final class Verdict {

		/** Writes the request and sets the fields that describe the state after it. */
		interface Commit {

			void apply(Verdict verdict);

		}

		final boolean allowed;

		long remaining;

		/** 0 when allowed, the wait when denied; ignored when {@link #never}. */
		final long retryAfterMs;

		/** Whether the cost can never fit (the scripts' retry-after of -1): no retry-after. */
		private boolean never;

		long resetAfterMs;

		long moreAfterMs;

		private final @Nullable Commit commit;

		/** A denial, or with {@code commit} an admission. */
		private Verdict(long remaining, long retryAfterMs, long resetAfterMs, long moreAfterMs, @Nullable Commit commit) {
			this.allowed = commit != null;
			this.remaining = nonNegative(remaining);
			this.retryAfterMs = retryAfterMs;
			this.resetAfterMs = resetAfterMs;
			this.moreAfterMs = moreAfterMs;
			this.commit = commit;
		}

		static Verdict denied(long remaining, long retryAfterMs, long resetAfterMs, long moreAfterMs) {
			return new Verdict(remaining, retryAfterMs, resetAfterMs, moreAfterMs, null);
		}

		/** The denial of a cost that can never fit. */
		static Verdict never(long remaining, long resetAfterMs, long moreAfterMs) {
			Verdict verdict = new Verdict(remaining, 0, resetAfterMs, moreAfterMs, null);
			verdict.never = true;
			return verdict;
		}

		static Verdict allowed(long remaining, long resetAfterMs, long moreAfterMs, Commit commit) {
			return new Verdict(remaining, 0, resetAfterMs, moreAfterMs, commit);
		}

		/** Writes the admitted request; only called when every limit of the request allowed it. */
		@SuppressWarnings("NullAway") // allowed: this.commit is set
		void commit() {
			this.commit.apply(this);
			this.remaining = nonNegative(this.remaining);
		}

		/** Sets the fields after the write. */
		void after(long remaining, long resetAfterMs, long moreAfterMs) {
			this.remaining = remaining;
			this.resetAfterMs = resetAfterMs;
			this.moreAfterMs = moreAfterMs;
		}

		LimitDecision toDecision(LimitRequest request) {
			LimitDecision.Allowance allowance = new LimitDecision.Allowance(this.remaining, this.resetAfterMs,
					this.moreAfterMs);
			if (this.allowed) {
				return LimitDecision.allowed(request, allowance);
			}
			return this.never ? LimitDecision.never(request, allowance)
					: LimitDecision.denied(request, this.retryAfterMs, allowance);
		}

	}

}
