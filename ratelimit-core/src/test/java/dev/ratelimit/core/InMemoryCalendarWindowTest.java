package dev.ratelimit.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * {@link CalendarWindowContract} on {@link InMemoryRateLimiter}. Its clock is fixed at {@code T0}, so that only the
 * explicit time of the requests moves, and a state's time to live is its deadline - T0.
 */
class InMemoryCalendarWindowTest extends CalendarWindowContract {

	private static final long T0 = AlgorithmContract.T0;

	private InMemoryRateLimiter memory;

	@Override
	RateLimiter newLimiter() {
		this.memory = new InMemoryRateLimiter(Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC));
		return this.memory;
	}

	@Override
	long ttlAfter(String client, LimitDefinition limit, long now) {
		return this.memory.deadline(client, limit).orElseThrow() - T0;
	}

}
