package dev.ratelimit.spring.enforce;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The timer of the waits for a permit: one daemon thread that only hands the end of a wait over to the common
 * fork-join pool, where the next attempt starts, so that one attempt never delays another's timer. A wait cut short
 * (woken by a release, cancelled) takes its timer out of the queue at once: a wait may be minutes long.
 */
final class WaitTimer {

	private static final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
		Thread thread = new Thread(task, "ratelimit-waits");
		thread.setDaemon(true);
		return thread;
	});

	static {
		timer.setRemoveOnCancelPolicy(true);
	}

	private WaitTimer() {
	}

	/** Runs {@code task} on the common pool after {@code nanos}; cancelled by cancelling the returned future. */
	static ScheduledFuture<?> after(long nanos, Runnable task) {
		return timer.schedule(() -> ForkJoinPool.commonPool().execute(task), nanos, TimeUnit.NANOSECONDS);
	}

	/** A stage that completes with {@code true} after {@code nanos}, on the common pool. */
	static CompletableFuture<Boolean> delay(long nanos) {
		CompletableFuture<Boolean> delayed = new CompletableFuture<>();
		ScheduledFuture<?> scheduled = after(nanos, () -> delayed.complete(true));
		delayed.whenComplete((done, failure) -> {
			if (delayed.isCancelled()) {
				scheduled.cancel(false);
			}
		});
		return delayed;
	}

}
