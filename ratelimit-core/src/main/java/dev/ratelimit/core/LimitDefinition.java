package dev.ratelimit.core;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The shape of one limit: at most {@code limit} units per {@code window}, counted by {@code algorithm}, for each
 * client. What one call takes from it (its cost) and whether it is enforced or shadow are the call's:
 * {@link LimitRequest}.
 *
 * <p>
 * {@code name} identifies the limit in Redis keys and in HTTP headers. Limits with the same name (and the same
 * algorithm and window) share one budget per client; different names never share state. {@code capacity} is
 * the token bucket's size (for other algorithms it equals {@code limit}).
 *
 * <p>
 * The canonical constructor checks every value and throws {@link InvalidLimitException} (an
 * {@link IllegalArgumentException}) with a message that names the offending field: a name that is not 1 to 200
 * printable ASCII characters without spaces and braces (it appears in header fields, and braces would break the Redis
 * Cluster hash tag), a limit or capacity below 1, a window below 1 ms or not a whole number of milliseconds, a sliding
 * log limit above {@value #MAX_SLIDING_LOG_LIMIT}, and numbers whose script arithmetic would leave the exact integer
 * range of a Lua number ({@code (max(limit, capacity) + 1) × window in ms < 2^52}; {@link LimitRequest} extends the
 * bound to its cost).
 *
 * <p>
 * A fixed window may count calendar periods rather than windows of one length ({@link #calendar(String, long,
 * CalendarPeriod)}): a day, week, month or year in a time zone, reset at its start there. Its {@code window} is the
 * period's nominal length ({@link CalendarPeriod#nominalLength()}); the scripts count without scaling by it, so its
 * limit may be up to 2^52 − 2. The other algorithms take no calendar period: the sliding algorithms and the token
 * bucket spread a budget over a window of one length, which a calendar period does not have.
 *
 * <p>
 * A limit may record usage ({@link #withUsage(UsageRecording)}): the units each client used per usage period, listed
 * by {@link RateLimiter#usage}. Limits of one name share their usage, as they share their state. A concurrency limit
 * records none.
 *
 * @param name identifies the limit; 1 to 200 printable ASCII characters, no spaces, no braces
 * @param algorithm how units are counted
 * @param limit units allowed per window; for the token bucket, tokens added per window
 * @param window the window, at least 1 ms, in whole milliseconds; for a calendar period, its nominal length
 * @param capacity token bucket size in units; must equal {@code limit} for the other algorithms
 * @param calendar the calendar period that a fixed window counts in, or {@code null} for windows of {@code window}
 * aligned to the epoch
 * @param usage how the limit records its clients' usage, or {@code null} (most limits) for none
 */
public record LimitDefinition(String name, Algorithm algorithm, long limit, Duration window, long capacity,
		@Nullable CalendarPeriod calendar, @Nullable UsageRecording usage) {

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
		// getNano, not toNanos: a window of centuries would overflow a count of nanoseconds
		if (window.isNegative() || window.isZero() || window.getNano() % 1_000_000 != 0) {
			throw new InvalidLimitException("window",
					"window of rate limit '" + name + "' must be at least 1 ms and a whole number of ms, but was " + window);
		}
		if (algorithm != Algorithm.TOKEN_BUCKET && capacity != limit) {
			throw new InvalidLimitException("capacity", "capacity of rate limit '" + name + "' applies to the token bucket only; "
					+ algorithm + " needs capacity == limit");
		}
		if (calendar != null) {
			if (algorithm != Algorithm.FIXED_WINDOW) {
				throw new InvalidLimitException("window", "rate limit '" + name + "' counts calendar periods (" + calendar
						+ "), which only the fixed window takes, but its algorithm is " + algorithm
						+ ": a sliding window or a token bucket needs a window of one length");
			}
			if (!window.equals(calendar.nominalLength())) {
				throw new InvalidLimitException("window", "window of rate limit '" + name + "' must be the nominal length "
						+ calendar.nominalLength() + " of its calendar period (" + calendar + "), but was " + window);
			}
		}
		if (algorithm == Algorithm.SLIDING_LOG && limit > MAX_SLIDING_LOG_LIMIT) {
			throw new InvalidLimitException("limit", "limit of rate limit '" + name + "' must be at most " + MAX_SLIDING_LOG_LIMIT
					+ " for the sliding log, which stores one entry per admitted unit, but was " + limit
					+ "; use the sliding window counter for large limits");
		}
		long largest = Math.max(limit, capacity);
		if (window.getSeconds() >= EXACT_BOUND / 1000) {
			throw new InvalidLimitException("window", "window of rate limit '" + name + "' leaves Lua's exact integer range: "
					+ "(max(limit, capacity, cost) + 1) × window in ms must stay below 2^52, but the window alone is "
					+ window + "; use a smaller window");
		}
		long scale = (calendar != null) ? 1 : window.toMillis();
		if (!fitsExactRange(largest, scale)) {
			String field = (largest == limit) ? "limit" : "capacity";
			throw outOfExactRange(field, name, largest, scale);
		}
		if (usage != null && !algorithm.rate()) {
			throw new InvalidLimitException("usage", "concurrency limit '" + name
					+ "' records no usage: it counts calls in flight, not units used; only a rate limit does");
		}
	}

	/** A limit without usage recording. See the canonical constructor. */
	public LimitDefinition(String name, Algorithm algorithm, long limit, Duration window, long capacity,
			@Nullable CalendarPeriod calendar) {
		this(name, algorithm, limit, window, capacity, calendar, null);
	}

	/** A limit of {@code window} aligned to the epoch, not a calendar period. See the canonical constructor. */
	public LimitDefinition(String name, Algorithm algorithm, long limit, Duration window, long capacity) {
		this(name, algorithm, limit, window, capacity, null, null);
	}

	/** Whether {@code (largest + 1) × windowMs} stays below {@link #EXACT_BOUND}. */
	static boolean fitsExactRange(long largest, long windowMs) {
		return largest < EXACT_BOUND / windowMs - 1;
	}

	/** The exception of a {@code field} whose value {@code largest} leaves the exact range. */
	static InvalidLimitException outOfExactRange(String field, String name, long largest, long windowMs) {
		return new InvalidLimitException(field, field + " of rate limit '" + name + "' leaves Lua's exact integer range: "
				+ "(max(limit, capacity, cost) + 1) × window in ms = (" + largest + " + 1) × " + windowMs
				+ " must stay below 2^52; use a smaller " + field + " or window");
	}

	/**
	 * A limit whose capacity equals its limit.
	 * @throws InvalidLimitException as the canonical constructor
	 */
	public static LimitDefinition of(String name, Algorithm algorithm, long limit, Duration window) {
		return new LimitDefinition(name, algorithm, limit, window, limit);
	}

	/**
	 * A fixed window of {@code limit} units per calendar {@code period}: reset at the start of each day, week, month
	 * or year in the period's zone ({@code docs/ALGORITHMS.md}, "Calendar periods").
	 * @throws InvalidLimitException as the canonical constructor
	 */
	public static LimitDefinition calendar(String name, long limit, CalendarPeriod period) {
		Objects.requireNonNull(period, "period must not be null");
		return new LimitDefinition(name, Algorithm.FIXED_WINDOW, limit, period.nominalLength(), limit, period);
	}

	/**
	 * This token bucket with another capacity.
	 * @throws InvalidLimitException if this is not a token bucket, or {@code capacity} is below 1 or out of range
	 */
	public LimitDefinition withCapacity(long capacity) {
		return new LimitDefinition(this.name, this.algorithm, this.limit, this.window, capacity, this.calendar,
				this.usage);
	}

	/**
	 * This limit recording its clients' usage as {@code usage} says ({@code docs/ALGORITHMS.md}, "Usage"), or with
	 * {@code null} recording none.
	 * @throws InvalidLimitException naming {@code usage} for a concurrency limit
	 */
	public LimitDefinition withUsage(@Nullable UsageRecording usage) {
		return new LimitDefinition(this.name, this.algorithm, this.limit, this.window, this.capacity, this.calendar,
				usage);
	}

	/**
	 * This limit recording its clients' usage per its own calendar period when it has one, else per calendar month
	 * in UTC (what an API sold by the month bills), at most {@value UsageRecording#DEFAULT_MAX_CLIENTS} clients a
	 * period.
	 * @throws InvalidLimitException naming {@code usage} for a concurrency limit
	 */
	public LimitDefinition withUsage() {
		return withUsage(UsageRecording.of(defaultUsagePeriod()));
	}

	/** The usage period of {@link #withUsage()}: the limit's calendar period, or the month in UTC. */
	public CalendarPeriod defaultUsagePeriod() {
		return (this.calendar != null) ? this.calendar : CalendarPeriod.of(CalendarPeriod.Unit.MONTH);
	}

	/** The window in ms; for a calendar period, its nominal length. */
	public long windowMs() {
		return this.window.toMillis();
	}

	/**
	 * The window the scripts multiply counts by, which the exact range bounds: {@link #windowMs()}, or 1 for a
	 * calendar period, whose scripts only count.
	 */
	long scaleMs() {
		return (this.calendar != null) ? 1 : this.window.toMillis();
	}

	/**
	 * The code the scripts know this limit's algorithm by ({@link Algorithm#code()}): {@code fc} for a fixed window of
	 * calendar periods (calendar_window.lua).
	 */
	String scriptCode() {
		return (this.calendar != null) ? CALENDAR_CODE : this.algorithm.code();
	}

	/** The scripts' code of a fixed window of calendar periods, and the window part of its key. */
	static final String CALENDAR_CODE = "fc";

	/**
	 * Whether {@code other} reads and writes this limit's state: the same name and algorithm, and for a rate limit the
	 * same window, or calendar periods both (of any unit and zone: a change of either keeps the clients' counts,
	 * docs/ALGORITHMS.md). The Redis key says the same ({@code RedisKeys}).
	 */
	boolean sharesState(LimitDefinition other) {
		if (!this.name.equals(other.name) || this.algorithm != other.algorithm) {
			return false;
		}
		if (!this.algorithm.rate()) {
			return true;
		}
		if ((this.calendar != null) || (other.calendar != null)) {
			return (this.calendar != null) && (other.calendar != null);
		}
		return this.window.equals(other.window);
	}

	/** The most units one request can ever take: the capacity of a token bucket, the limit of the others. */
	public long maxCost() {
		return (this.algorithm == Algorithm.TOKEN_BUCKET) ? this.capacity : this.limit;
	}

	/** A request of cost 1 against this limit, enforced. */
	public LimitRequest request() {
		return new LimitRequest(this, 1, false);
	}

	/**
	 * A request of {@code cost} units against this limit, enforced.
	 * @throws InvalidLimitException naming {@code cost} as {@link LimitRequest}'s constructor
	 */
	public LimitRequest request(long cost) {
		return new LimitRequest(this, cost, false);
	}

	static void requirePositive(String field, long value, String name) {
		if (value < 1) {
			throw new InvalidLimitException(field, field + " of rate limit '" + name + "' must be at least 1, but was " + value);
		}
	}

}
