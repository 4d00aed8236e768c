package dev.ratelimit.spring.test.app;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.core.RateLimiter;

/** A clock that tests set and advance; time never passes on its own. */
public final class TestClock implements InstantSource {

	private final AtomicLong millis;

	public TestClock(long startMillis) {
		this.millis = new AtomicLong(startMillis);
	}

	@Override
	public long millis() {
		return this.millis.get();
	}

	@Override
	public Instant instant() {
		return Instant.ofEpochMilli(millis());
	}

	/** {@code limiter} deciding at {@code nowMs}: {@link RateLimiter#withClock} with a fixed clock. */
	public static RateLimiter at(RateLimiter limiter, long nowMs) {
		return limiter.withClock(InstantSource.fixed(Instant.ofEpochMilli(nowMs)));
	}

	public void set(long millis) {
		this.millis.set(millis);
	}

	public void advance(long millis) {
		this.millis.addAndGet(millis);
	}

}
