package dev.ratelimit.spring.enforce;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.core.redis.Timeouts;

/**
 * {@link Timeouts} on one daemon thread of the limiter's, for Spring MVC. A cancelled timeout stays queued until its
 * time (at most {@code ratelimit.redis.timeout}) and then does nothing: removing it at once would take the queue's
 * lock on the Redis client's thread that cancels it.
 */
public final class ThreadTimeoutScheduler implements Timeouts {

	private static final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
		Thread thread = new Thread(task, "ratelimit-timeouts");
		thread.setDaemon(true);
		return thread;
	});

	static {
		executor.setRemoveOnCancelPolicy(false);
	}

	@Override
	public Runnable schedule(Runnable onTimeout, long delayNanos) {
		ScheduledFuture<?> timeout = executor.schedule(onTimeout, delayNanos, TimeUnit.NANOSECONDS);
		return () -> timeout.cancel(false);
	}

}
