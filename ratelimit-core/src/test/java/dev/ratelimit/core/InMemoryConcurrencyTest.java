package dev.ratelimit.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** {@link Concurrency} on {@link InMemoryRateLimiter}: one client's limits are decided under its monitor. */
class InMemoryConcurrencyTest extends Concurrency {

	@Override
	RateLimiter newLimiter(String prefix) {
		return new InMemoryRateLimiter(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));
	}

}
