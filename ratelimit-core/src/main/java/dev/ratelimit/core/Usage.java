package dev.ratelimit.core;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One page of a limit's usage in one period ({@link RateLimiter#usage}): its clients by units, largest first.
 *
 * @param limit the limit's name
 * @param periodStart the period's first instant
 * @param periodEnd the period's end, exclusive: the next period's start
 * @param clients how many distinct clients are recorded in the period (the overflow aside)
 * @param overflowUnits units of clients not recorded because the period held {@link UsageRecording#maxClients()}
 * clients when they came; 0 when the cap was never met
 * @param page the page's number, from 0
 * @param size the most clients a page holds
 * @param entries the page's clients, by units descending, equal units by the client id's UTF-8 bytes descending;
 * fewer than {@code size} on the last page, none past it
 */
public record Usage(String limit, Instant periodStart, Instant periodEnd, long clients, long overflowUnits, int page,
		int size, List<ClientUsage> entries) {

	/** The largest page size. */
	public static final int MAX_PAGE_SIZE = 1000;

	public Usage {
		Objects.requireNonNull(limit, "limit must not be null");
		Objects.requireNonNull(periodStart, "periodStart must not be null");
		Objects.requireNonNull(periodEnd, "periodEnd must not be null");
		entries = List.copyOf(entries);
	}

	/** Which period to read, by the reader's clock. */
	public enum Period {

		/** The period that holds the reader's time. */
		CURRENT,

		/** The one before it, complete once it ended: what a bill of the last month reads. */
		PREVIOUS

	}

}
