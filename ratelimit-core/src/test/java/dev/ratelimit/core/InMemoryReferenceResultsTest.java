package dev.ratelimit.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** {@link ReferenceResults} by {@link InMemoryRateLimiter}, on a fixed clock so that only explicit time moves. */
class InMemoryReferenceResultsTest extends ReferenceResults {

	@Override
	RateLimiter newLimiter(String prefix) {
		return new InMemoryRateLimiter(Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC));
	}

}
