package dev.ratelimit.core.redis;

/**
 * Ends the waits of a rate limiter at a request's deadline, without blocking the thread that schedules or cancels
 * them: the thread that asks Redis may be an event loop, and the thread that cancels (when Redis answers first) is
 * the Redis client's own. The executors of this package judge them with what Redis does with their calls
 * ({@link FairDeadlines}: on Lettuce, the I/O thread that reads the replies, so a busy application is not taken for a
 * slow Redis). The Spring Boot starter waits with them, and otherwise with Reactor's parallel scheduler (WebFlux) or
 * a thread of its own (Spring MVC).
 */
public interface Timeouts {

	/**
	 * Runs {@code onTimeout} once {@code delayNanos} have passed, unless the returned canceller runs first.
	 * @param onTimeout what the deadline does; it runs on the timer's thread, and must not block
	 * @param delayNanos the time until the deadline, in nanoseconds
	 * @return the canceller; it never blocks, and does nothing once {@code onTimeout} has run
	 */
	Runnable schedule(Runnable onTimeout, long delayNanos);

	/**
	 * A Redis client that judges the requests' deadlines itself ({@link LettuceScriptExecutor},
	 * {@link PooledJedisScriptExecutor}).
	 */
	interface Judged {

		/** The deadlines, judged with what Redis does with the client's calls. */
		Timeouts deadlines();

	}

}
