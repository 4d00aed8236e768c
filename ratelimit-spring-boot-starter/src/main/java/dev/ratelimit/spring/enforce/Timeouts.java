package dev.ratelimit.spring.enforce;

/**
 * Ends the waits of the limiter at the request's deadline, without blocking the thread that schedules or cancels
 * them: the thread that asks Redis may be an event loop, and the thread that cancels (when Redis answers first) is
 * the Redis client's own. With Lettuce, the limiter's I/O thread judges them (it reads the replies first, so a busy
 * application is not taken for a slow Redis); otherwise WebFlux uses Reactor's parallel scheduler and Spring MVC
 * {@link ThreadTimeoutScheduler}.
 */
public interface Timeouts {

	/**
	 * Runs {@code onTimeout} once {@code delayNanos} have passed, unless the returned canceller runs first.
	 * @return the canceller; it never blocks
	 */
	Runnable schedule(Runnable onTimeout, long delayNanos);

	/** A Redis client of the limiter's that judges the requests' deadlines itself (Lettuce's, Jedis'). */
	interface Judged {

		/** The deadlines, judged with what Redis does with the client's calls. */
		Timeouts deadlines();

	}

}
