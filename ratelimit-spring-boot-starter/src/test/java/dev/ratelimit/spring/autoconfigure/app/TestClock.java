package dev.ratelimit.spring.autoconfigure.app;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that tests set and advance; time never passes on its own. */
public final class TestClock {

	private final AtomicLong millis;

	public TestClock(long startMillis) {
		this.millis = new AtomicLong(startMillis);
	}

	public long millis() {
		return this.millis.get();
	}

	public void set(long millis) {
		this.millis.set(millis);
	}

	public void advance(long millis) {
		this.millis.addAndGet(millis);
	}

}
