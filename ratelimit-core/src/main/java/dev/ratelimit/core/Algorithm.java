package dev.ratelimit.core;

import java.util.List;

/**
 * The four rate-limiting algorithms, and the concurrency limit decided with them. Each is an atomic Lua script in
 * Redis; their exact contract, including the reference results, is {@code docs/ALGORITHMS.md}. The rate limits differ
 * at bursts and window boundaries; {@link #CONCURRENCY} bounds calls in flight rather than calls per window.
 */
public enum Algorithm {

	/**
	 * One counter per window {@code floor(now / W)}, the classic counter of the Redis documentation's
	 * {@code INCR} rate-limiter pattern. Cheapest; a client straddling a boundary gets up to {@code 2 × limit} in a
	 * short span.
	 */
	FIXED_WINDOW("fw"),

	/**
	 * A sorted set of admitted timestamps: exact, no span of one window ever holds more than {@code limit} units.
	 * Memory grows with the limit. The sliding log as described by Cloudflare and Figma's engineering posts.
	 */
	SLIDING_LOG("sl"),

	/**
	 * Two fixed-window counters, the previous weighted by its overlap with the sliding window (Cloudflare,
	 * "How we built rate limiting capable of scaling to millions of domains", 2017). Constant memory, slight
	 * overshoot.
	 */
	SLIDING_WINDOW_COUNTER("swc"),

	/**
	 * A bucket of {@code capacity} tokens refilled with {@code limit} tokens per window (the token bucket of network
	 * traffic shaping, Turner 1986), refilled lazily and decided in exact integer arithmetic. Allows bursts up to the
	 * capacity; up to {@code capacity + limit} units within one window.
	 */
	TOKEN_BUCKET("tb"),

	/**
	 * At most {@code limit} calls in flight at once: a call takes a lease when it is admitted and gives it back when it
	 * ends ({@link RateLimiter#settle} with an actual cost of 0), as Stripe's concurrent requests limiter does. The
	 * window is the lease time: a lease neither given back nor renewed (its holder died) expires that long after it
	 * was last taken or renewed. A sorted set of lease ids made by the caller ({@link LimitRequest#lease()}), scored by
	 * their expiry; a call takes one lease (cost 1). Not a rate: {@link #rate()} is false.
	 */
	CONCURRENCY("cc");

	private final String code;

	Algorithm(String code) {
		this.code = code;
	}

	private static final List<Algorithm> RATES = List.of(FIXED_WINDOW, SLIDING_LOG, SLIDING_WINDOW_COUNTER, TOKEN_BUCKET);

	/** The four rate-limiting algorithms, every value but {@link #CONCURRENCY}, in declaration order. */
	public static List<Algorithm> rates() {
		return RATES;
	}

	/** Whether this algorithm limits a rate (units per window), as every algorithm but {@link #CONCURRENCY} does. */
	public boolean rate() {
		return this != CONCURRENCY;
	}

	/** Short code used in Redis keys and script arguments, e.g. {@code "tb"}. */
	String code() {
		return this.code;
	}

}
