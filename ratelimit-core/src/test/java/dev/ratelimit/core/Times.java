package dev.ratelimit.core;

import java.time.Instant;
import java.time.InstantSource;

/** Explicit times for tests: a limiter deciding at a given ms, on the same state as the one given. */
final class Times {

	private Times() {
	}

	/** {@code limiter} deciding at {@code nowMs} ({@link RateLimiter#withClock} with a fixed clock). */
	static RateLimiter at(RateLimiter limiter, long nowMs) {
		return limiter.withClock(InstantSource.fixed(Instant.ofEpochMilli(nowMs)));
	}

}
