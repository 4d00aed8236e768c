package dev.ratelimit.core;

import java.util.Objects;

/**
 * A limit's opt-in to usage recording ({@link LimitDefinition#withUsage}): the units each client used in each
 * {@code period}, debt included, written by the same script call as the decision and listed by
 * {@link RateLimiter#usage} ({@code docs/ALGORITHMS.md}, "Usage").
 *
 * <p>
 * The client ids are kept in clear text, as the caller gives them to {@link RateLimiter#tryAcquire(String,
 * java.util.List)}: personal data (IP addresses, user names), written only for limits that record usage. A period's
 * usage expires at the end of the period after it.
 *
 * @param period the calendar period usage is counted in: a day, week, month or year in a time zone
 * @param maxClients the most distinct clients recorded per period, 1 to {@value #MAX_CLIENTS_BOUND}; at the cap a
 * new client's units go to the period's overflow ({@link Usage#overflowUnits()}). On a Redis Cluster it applies per
 * hash slot as {@code ceil(2 × maxClients / 16,384) + 16} ({@link RedisRateLimiter#onCluster()}).
 */
public record UsageRecording(CalendarPeriod period, int maxClients) {

	/** Clients per period when not said otherwise: a sorted set of about 12 MB on Redis (docs/BENCHMARKS.md). */
	public static final int DEFAULT_MAX_CLIENTS = 100_000;

	/**
	 * The largest cap: a period's set of that many clients is about 1.2 GB on Redis, and the in-memory backend sorts it
	 * whole for a page.
	 */
	public static final int MAX_CLIENTS_BOUND = 10_000_000;

	/**
	 * @throws InvalidLimitException naming {@code usage} when {@code maxClients} is out of range
	 */
	public UsageRecording {
		Objects.requireNonNull(period, "period must not be null");
		if (maxClients < 1 || maxClients > MAX_CLIENTS_BOUND) {
			throw new InvalidLimitException("usage", "the most clients whose usage is recorded must be 1 to "
					+ MAX_CLIENTS_BOUND + ", but was " + maxClients);
		}
	}

	/** Usage per {@code period}, at most {@value #DEFAULT_MAX_CLIENTS} clients a period. */
	public static UsageRecording of(CalendarPeriod period) {
		return new UsageRecording(period, DEFAULT_MAX_CLIENTS);
	}

	/** This recording with another cap. See the constructor. */
	public UsageRecording withMaxClients(int maxClients) {
		return new UsageRecording(this.period, maxClients);
	}

}
