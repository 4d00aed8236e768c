package dev.ratelimit.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that tests move by hand, in ms, instead of sleeping; safe to read and move from several threads. */
final class MutableClock extends Clock {

	private final AtomicLong millis;

	MutableClock(long millis) {
		this.millis = new AtomicLong(millis);
	}

	void set(long millis) {
		this.millis.set(millis);
	}

	/** Moves the clock forward by {@code ms}; the time after the move. */
	long advance(long ms) {
		return this.millis.addAndGet(ms);
	}

	@Override
	public long millis() {
		return this.millis.get();
	}

	@Override
	public Instant instant() {
		return Instant.ofEpochMilli(millis());
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		throw new UnsupportedOperationException("a test clock has one zone");
	}

}
