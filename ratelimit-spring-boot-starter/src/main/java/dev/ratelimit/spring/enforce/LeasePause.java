package dev.ratelimit.spring.enforce;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One wait for a lease between two attempts ({@link LeaseWaits}): settled once, by a release, its timer, or a
 * cancellation.
 */
final class LeasePause {

	private final long arrival;

	final CompletableFuture<Boolean> result = new CompletableFuture<>();

	final AtomicBoolean settled = new AtomicBoolean();

	/** Whether a release ended it: if its caller cancelled meanwhile, the release goes to the next one. */
	volatile boolean byRelease;

	LeasePause(long arrival) {
		this.arrival = arrival;
	}

	long arrival() {
		return this.arrival;
	}

	/** Ends the pause with {@code retry}, on the common pool; whether this call ended it. */
	boolean wake(boolean retry) {
		if (this.result.isDone() || !this.settled.compareAndSet(false, true)) {
			return false;
		}
		ForkJoinPool.commonPool().execute(() -> this.result.complete(retry));
		return true;
	}

	boolean wakeByRelease() {
		this.byRelease = true;
		if (wake(true)) {
			return true;
		}
		this.byRelease = false;
		return false;
	}

}
