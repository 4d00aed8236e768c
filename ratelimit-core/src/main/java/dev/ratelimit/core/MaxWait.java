package dev.ratelimit.core;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * A caller's wait for a permit, of at most a given time from its first attempt: after each denial, wait its
 * retry-after and decide again, as long as that wait ends within the max wait; a denial that no wait can cure (its
 * cost never fits) ends it at once. The one rule of {@link RateLimiter#acquire} and of the Spring starter's waits
 * (a sleeping thread, a delayed {@code CompletableFuture}, a Reactor delay).
 */
public final class MaxWait {

	/** {@link System#nanoTime()} after which no further attempt begins. */
	private final long deadline;

	private MaxWait(long deadline) {
		this.deadline = deadline;
	}

	/** The longest wait measured: about 73 years, far enough from the range of {@link System#nanoTime()} differences. */
	private static final long LONGEST_NANOS = Long.MAX_VALUE / 4;

	/**
	 * A wait that starts now.
	 * @param maxWait how long a caller may wait for a permit in all; {@link Duration#ZERO}: not at all; anything
	 * beyond about 73 years ({@code ChronoUnit.FOREVER}'s duration, say) is waited as that long
	 * @throws IllegalArgumentException when {@code maxWait} is negative
	 */
	public static MaxWait of(Duration maxWait) {
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must not be negative: " + maxWait);
		}
		long nanos = (maxWait.compareTo(Duration.ofNanos(LONGEST_NANOS)) > 0) ? LONGEST_NANOS : maxWait.toNanos();
		return new MaxWait(System.nanoTime() + nanos);
	}

	/** How long is left of the max wait, in ns: 0 or less once it has passed. */
	public long remainingNanos() {
		return this.deadline - System.nanoTime();
	}

	/**
	 * How long to wait, in ns, before deciding again after a denial.
	 * @param retryAfterMs the denial's retry-after in ms; empty when it can never be admitted
	 * @return the retry-after in ns; -1 to give up: never admitted, or a wait that would end after the max wait
	 */
	public long waitNanos(OptionalLong retryAfterMs) {
		if (retryAfterMs.isEmpty()) {
			return -1;
		}
		long waitNanos = TimeUnit.MILLISECONDS.toNanos(retryAfterMs.getAsLong());
		return (System.nanoTime() + waitNanos - this.deadline > 0) ? -1 : waitNanos;
	}

}
