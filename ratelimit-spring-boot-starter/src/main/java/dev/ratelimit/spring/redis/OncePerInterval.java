package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Lets something (a topology refresh) happen at most once per interval, asked from any thread and never blocking:
 * the first caller after the interval gets it, the others are told no.
 */
final class OncePerInterval {

	private final long intervalNanos;

	private final LongSupplier nanoTime;

	/** The {@link #nanoTime} from which it may happen again. */
	private final AtomicLong next;

	OncePerInterval(Duration interval) {
		this(interval, System::nanoTime);
	}

	/**
	 * @param interval the least time between two
	 * @param nanoTime the clock, in nanoseconds ({@link System#nanoTime()})
	 */
	OncePerInterval(Duration interval, LongSupplier nanoTime) {
		this.intervalNanos = interval.toNanos();
		this.nanoTime = nanoTime;
		this.next = new AtomicLong(nanoTime.getAsLong());
	}

	/** @return whether the caller may do it now (and nobody else may for an interval) */
	boolean tryAcquire() {
		long now = this.nanoTime.getAsLong();
		long allowed = this.next.get();
		return now - allowed >= 0 && this.next.compareAndSet(allowed, now + this.intervalNanos);
	}

	/** Counts it as done now by someone who did not ask (Lettuce's own adaptive refresh): no other for an interval. */
	void happened() {
		long later = this.nanoTime.getAsLong() + this.intervalNanos;
		this.next.accumulateAndGet(later, (current, candidate) -> (candidate - current > 0) ? candidate : current);
	}

}
