package dev.ratelimit.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * {@link UsageContract} on {@link InMemoryRateLimiter}. Its clock is fixed at {@code T0}, so that only the explicit
 * time of the requests moves, and a usage set's time to live is its deadline - T0.
 */
class InMemoryUsageTest extends UsageContract {

	private static final long T0 = AlgorithmContract.T0;

	private InMemoryRateLimiter memory;

	@Override
	RateLimiter newLimiter() {
		this.memory = new InMemoryRateLimiter(Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC));
		return this.memory;
	}

	@Override
	long usageTtlAfter(LimitDefinition limit, long start, long end, long now) {
		return this.memory.usageDeadline(limit, start, end).orElseThrow() - T0;
	}

}
