package dev.ratelimit.spring.test.recipe;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** The clock of docs/TESTING.md. */
// snippet:start clock
public class LimitsClock implements InstantSource {

	private volatile Instant now = Instant.parse("2030-01-01T00:00:00Z");

	@Override
	public Instant instant() {
		return this.now;
	}

	/** Moves the time forward; it never passes on its own. */
	public void advance(Duration duration) {
		this.now = this.now.plus(duration);
	}

}
// snippet:end clock
