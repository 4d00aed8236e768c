package dev.ratelimit.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * {@link ConcurrencyLimitContract} on {@link InMemoryRateLimiter}, whose clock is fixed at {@code T0}: only the
 * explicit time of the requests moves, and a state's time to live is its deadline less {@code T0}.
 */
class InMemoryConcurrencyLimitTest extends ConcurrencyLimitContract {

	private InMemoryRateLimiter memory;

	@Override
	RateLimiter newLimiter() {
		this.memory = new InMemoryRateLimiter(Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC));
		return this.memory;
	}

	@Override
	LeaseReleases releases() {
		return this.memory.releases();
	}

	@Override
	long ttlMs(String client, LimitDefinition limit) {
		return this.memory.deadline(client, limit).map((deadline) -> deadline - T0).orElse(-2L);
	}

}
