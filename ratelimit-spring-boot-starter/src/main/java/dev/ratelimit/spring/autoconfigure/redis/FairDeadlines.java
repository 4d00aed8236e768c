package dev.ratelimit.spring.autoconfigure.redis;

import java.time.Duration;

import dev.ratelimit.spring.autoconfigure.Timeouts;

/**
 * Requests' deadlines that pass when Redis is slow or unreachable, not when the application is busy: the rule of
 * both clients of the limiter ({@link EventLoopTimeouts} for Lettuce, {@link PooledJedisScriptExecutor} for Jedis).
 *
 * <p>
 * Why: a deadline measured by the clock alone passed in a burst although Redis was healthy and idle. With 100
 * request threads on 2 cores, the client's own threads waited for their turn to send commands and to read replies
 * that Redis had sent within a millisecond, and the limiter failed those requests open: a limit of 50 admitted up
 * to 179. So when a deadline is due, it asks the client what Redis has done with the limiter's calls:
 * <ul>
 * <li>the oldest unanswered call (Redis answers in order) was sent less than {@code grace} ago: the application sent
 * it late, Redis has not had its time yet: the deadline waits until it has;</li>
 * <li>Redis has answered some call since the oldest unanswered one was sent (it is working through the limiter's
 * calls), or, with no call unanswered, within the last {@code grace} (the request's call waits for a busy client
 * thread to send it): the deadline waits;</li>
 * <li>otherwise Redis has had {@code grace} and answered nothing: it is slow or unreachable, the deadline passes,
 * once the client has had one more chance to read (a short wait: the threads that read may have been preempted
 * between reading and this check).</li>
 * </ul>
 * A call that ended without an answer (a timeout, a closed connection) counts as unanswered until Redis answers
 * again, so calls sent after it to a Redis that still answers nothing get no grace.
 * A deadline waits so at most {@code grace} beyond its time. A Redis that is paused, down or unreachable answers
 * nothing, so there the deadlines are exact. The grace is half of {@code ratelimit.redis.timeout}: a request spends
 * at most 1.5 timeouts in the limiter, and more than one only while Redis is answering.
 */
final class FairDeadlines implements Timeouts {

	private final Timeouts timer;

	private final Progress progress;

	private final long graceNanos;

	/**
	 * @param timer where the deadlines run; for Lettuce the I/O thread, which reads replies before its due tasks
	 * @param progress what Redis has done with the client's calls
	 * @param timeout {@code ratelimit.redis.timeout}, of which the grace is half
	 */
	FairDeadlines(Timeouts timer, Progress progress, Duration timeout) {
		this.timer = timer;
		this.progress = progress;
		this.graceNanos = timeout.toNanos() / 2;
	}

	@Override
	public Runnable schedule(Runnable onTimeout, long delayNanos) {
		Deadline deadline = new Deadline(onTimeout, System.nanoTime() + delayNanos + this.graceNanos);
		deadline.at(delayNanos);
		return deadline::cancel;
	}

	/** What Redis has done with a client's calls, as {@link System#nanoTime()} values. */
	interface Progress {

		/**
		 * When the oldest call that Redis has not answered yet was sent, or {@code null}: none. A call that ended
		 * without an answer counts until Redis answers another.
		 */
		Long oldestUnansweredSentAt();

		/** When Redis last answered a call of this client (0 before the first answer). */
		long lastAnsweredAt();

	}

	/** One request's deadline: due, then possibly waiting for Redis, then run. */
	private final class Deadline implements Runnable {

		private final Runnable onTimeout;

		private final long latest;

		private volatile Runnable cancelScheduled;

		private volatile boolean cancelled;

		/** Whether the deadline found Redis silent once and looks again after the client had a chance to read. */
		private boolean confirming;

		Deadline(Runnable onTimeout, long latest) {
			this.onTimeout = onTimeout;
			this.latest = latest;
		}

		void at(long delayNanos) {
			this.cancelScheduled = FairDeadlines.this.timer.schedule(this, delayNanos);
		}

		@Override
		public void run() {
			if (this.cancelled) {
				return;
			}
			long now = System.nanoTime();
			long waitUntil = waitUntil(now);
			if (waitUntil - now > 0) {
				this.confirming = false;
				at(waitUntil - now);
				return;
			}
			if (!this.confirming && this.latest - now > 0) {
				// a timer due now runs before the next read of the client's threads: look again after it
				this.confirming = true;
				at(Math.min(FairDeadlines.this.graceNanos / 10, this.latest - now));
				return;
			}
			this.onTimeout.run();
		}

		/** Until when Redis should still be waited for ({@code now} or earlier: not at all). */
		private long waitUntil(long now) {
			if (this.latest - now <= 0) {
				return now;
			}
			long grace = FairDeadlines.this.graceNanos;
			Long oldest = FairDeadlines.this.progress.oldestUnansweredSentAt();
			if (oldest != null && oldest + grace - now > 0) {
				return Math.min(oldest + grace, this.latest);
			}
			long answered = FairDeadlines.this.progress.lastAnsweredAt();
			boolean working = (oldest != null) ? answered - oldest > 0 : now - answered < grace;
			if (working) {
				// check again a little later, while Redis works through the calls sent before this one (or while
				// the client's threads, busy, have not sent it yet)
				return Math.min(now + grace / 10, this.latest);
			}
			return now;
		}

		void cancel() {
			this.cancelled = true;
			// an answer that came before the deadline was even scheduled finds nothing to cancel: the flag stops it
			Runnable scheduled = this.cancelScheduled;
			if (scheduled != null) {
				scheduled.run();
			}
		}

	}

}
