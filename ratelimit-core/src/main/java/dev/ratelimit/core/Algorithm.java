package dev.ratelimit.core;

/**
 * The four rate-limiting algorithms. Each is an atomic Lua script in Redis; their exact contract, including
 * the reference results, is {@code docs/ALGORITHMS.md}. They differ at bursts and window boundaries.
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
	TOKEN_BUCKET("tb");

	private final String code;

	Algorithm(String code) {
		this.code = code;
	}

	/** Short code used in Redis keys and script arguments, e.g. {@code "tb"}. */
	String code() {
		return this.code;
	}

}
