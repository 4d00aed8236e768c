package dev.ratelimit.core;

import java.time.Duration;
import java.util.Objects;

/**
 * One limit: at most {@code limit} units per {@code window}, counted by {@code algorithm}, for each client.
 *
 * <p>
 * {@code name} identifies the limit in Redis keys and in HTTP headers. Limits with the same name (and the same
 * algorithm and window) share one budget per client; different names never share state. {@code capacity} is
 * the token bucket's size (for other algorithms it equals {@code limit}). {@code cost} is the number of units
 * one request takes.
 *
 * <p>
 * The canonical constructor checks every value and throws {@link InvalidLimitException} (an
 * {@link IllegalArgumentException} naming the field) with a message that
 * names the offending field: a name that is not 1 to 200 printable ASCII characters without spaces and braces (it
 * appears in header fields, and braces would break the Redis Cluster hash tag), a limit, capacity or cost below 1, a window below 1 ms or not a whole number of milliseconds, a sliding log
 * limit above {@value #MAX_SLIDING_LOG_LIMIT}, and numbers
 * whose script arithmetic would leave the exact integer range of a Lua number ({@code (max(limit, capacity, cost)
 * + 1) × window in ms < 2^52}). A cost above the limit (or the capacity) is accepted here: such a request is
 * decided as {@link LimitDecision#NEVER}. Configuration with a fixed cost should use {@link #requireCostFits()} to
 * reject it at startup.
 *
 * @param name identifies the limit; 1 to 200 printable ASCII characters, no spaces, no braces
 * @param algorithm how units are counted
 * @param limit units allowed per window; for the token bucket, tokens added per window
 * @param window the window, at least 1 ms, in whole milliseconds
 * @param capacity token bucket size in units; must equal {@code limit} for the other algorithms
 * @param cost units one request takes
 * @param shadow whether the limit is observed only: it is decided with the enforced limits of the same call, and
 * consumes exactly when it admits and every enforced limit admits, but its denial blocks nothing. Shadow does not
 * change the limit's state identity (its Redis key): moving a limit between shadow and enforced keeps its state.
 */
public record LimitDefinition(String name, Algorithm algorithm, long limit, Duration window, long capacity,
		long cost, boolean shadow) {

	/**
	 * Bound for {@code (max(limit, capacity, cost) + 1) × window in ms}: 2^52, half of the 2^53 up to which a Lua
	 * number (a double) holds every integer, so that sums of two such terms in the scripts stay exact too.
	 */
	static final long EXACT_BOUND = 1L << 52;

	/**
	 * Largest limit of a sliding log: it keeps one sorted-set member per admitted unit, so memory per client and the
	 * time one admission blocks Redis grow with the limit.
	 */
	public static final long MAX_SLIDING_LOG_LIMIT = 10_000;

	public LimitDefinition {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(algorithm, "algorithm must not be null");
		Objects.requireNonNull(window, "window must not be null");
		// Printable ASCII: the name is an sf-string in the RateLimit header fields, and braces would change the
		// Redis Cluster hash tag of the key.
		if (name.isEmpty() || name.length() > 200
				|| name.chars().anyMatch((ch) -> ch <= ' ' || ch > '~' || ch == '{' || ch == '}')) {
			throw new InvalidLimitException("name", "name must be 1 to 200 printable ASCII characters without spaces or braces, but was '" + name + "'");
		}
		requirePositive("limit", limit, name);
		requirePositive("capacity", capacity, name);
		requirePositive("cost", cost, name);
		// getNano, not toNanos: a window of centuries would overflow a count of nanoseconds
		if (window.isNegative() || window.isZero() || window.getNano() % 1_000_000 != 0) {
			throw new InvalidLimitException("window",
					"window of rate limit '" + name + "' must be at least 1 ms and a whole number of ms, but was " + window);
		}
		if (algorithm != Algorithm.TOKEN_BUCKET && capacity != limit) {
			throw new InvalidLimitException("capacity", "capacity of rate limit '" + name + "' applies to the token bucket only; "
					+ algorithm + " needs capacity == limit");
		}
		if (algorithm == Algorithm.SLIDING_LOG && limit > MAX_SLIDING_LOG_LIMIT) {
			throw new InvalidLimitException("limit", "limit of rate limit '" + name + "' must be at most " + MAX_SLIDING_LOG_LIMIT
					+ " for the sliding log, which stores one entry per admitted unit, but was " + limit
					+ "; use the sliding window counter for large limits");
		}
		long largest = Math.max(limit, Math.max(capacity, cost));
		if (window.getSeconds() >= EXACT_BOUND / 1000) {
			throw new InvalidLimitException("window", "window of rate limit '" + name + "' leaves Lua's exact integer range: "
					+ "(max(limit, capacity, cost) + 1) × window in ms must stay below 2^52, but the window alone is "
					+ window + "; use a smaller window");
		}
		long windowMs = window.toMillis();
		if (largest >= EXACT_BOUND / windowMs - 1) {
			String field = (largest == limit) ? "limit" : (largest == capacity) ? "capacity" : "cost";
			throw new InvalidLimitException(field, field + " of rate limit '" + name + "' leaves Lua's exact integer range: "
					+ "(max(limit, capacity, cost) + 1) × window in ms = (" + largest + " + 1) × " + windowMs
					+ " must stay below 2^52; use a smaller " + field + " or window");
		}
	}

	/** An enforced (not shadow) limit. @throws IllegalArgumentException as the canonical constructor */
	public LimitDefinition(String name, Algorithm algorithm, long limit, Duration window, long capacity, long cost) {
		this(name, algorithm, limit, window, capacity, cost, false);
	}

	/** This limit, shadow or enforced. */
	public LimitDefinition withShadow(boolean shadow) {
		return new LimitDefinition(this.name, this.algorithm, this.limit, this.window, this.capacity, this.cost, shadow);
	}

	/**
	 * A limit of cost 1 whose capacity equals its limit.
	 * @throws IllegalArgumentException as the canonical constructor
	 */
	public static LimitDefinition of(String name, Algorithm algorithm, long limit, Duration window) {
		return new LimitDefinition(name, algorithm, limit, window, limit, 1);
	}

	/**
	 * This limit with another cost per request.
	 * @throws IllegalArgumentException if {@code cost} is below 1 or out of range
	 */
	public LimitDefinition withCost(long cost) {
		return new LimitDefinition(this.name, this.algorithm, this.limit, this.window, this.capacity, cost, this.shadow);
	}

	/**
	 * This token bucket with another capacity.
	 * @throws IllegalArgumentException if this is not a token bucket, or {@code capacity} is below 1 or out of range
	 */
	public LimitDefinition withCapacity(long capacity) {
		return new LimitDefinition(this.name, this.algorithm, this.limit, this.window, capacity, this.cost, this.shadow);
	}

	/** The window in ms. */
	public long windowMs() {
		return this.window.toMillis();
	}

	/**
	 * Checks that a request of this cost can ever be admitted, for configuration whose cost is fixed.
	 * @return this definition
	 * @throws IllegalArgumentException if the cost exceeds the limit, or for the token bucket the capacity
	 */
	public LimitDefinition requireCostFits() {
		long bound = (this.algorithm == Algorithm.TOKEN_BUCKET) ? this.capacity : this.limit;
		if (this.cost > bound) {
			throw new InvalidLimitException("cost", "cost " + this.cost + " of rate limit '" + this.name + "' exceeds its "
					+ ((this.algorithm == Algorithm.TOKEN_BUCKET) ? "capacity " : "limit ") + bound
					+ ": such a request could never be admitted");
		}
		return this;
	}

	private static void requirePositive(String field, long value, String name) {
		if (value < 1) {
			throw new InvalidLimitException(field, field + " of rate limit '" + name + "' must be at least 1, but was " + value);
		}
	}

}
