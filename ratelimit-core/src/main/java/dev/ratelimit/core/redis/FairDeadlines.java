package dev.ratelimit.core.redis;

import java.time.Duration;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

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
 * <li>the oldest unanswered call (Redis answers in order) was sent less than {@code grace} ago, or no call is
 * unanswered and Redis answered one within the last {@code grace}: the application is late sending its calls (the
 * request's call waits for a busy client thread), Redis is fine: the deadline waits;</li>
 * <li>Redis has answered some call since the oldest unanswered one was sent: it is answering, slowly: the deadline
 * waits, by at most {@code grace} beyond its time;</li>
 * <li>otherwise Redis has had {@code grace} and answered nothing: it is slow or unreachable, the deadline passes,
 * once the client has had one more chance to read (a short wait: the threads that read may have been preempted
 * between reading and this check).</li>
 * </ul>
 * A call that ended without an answer (a timeout, a closed connection) counts as unanswered until Redis answers
 * again, so calls sent after it to a Redis that still answers nothing get no grace. A Redis that is paused, down or
 * unreachable answers nothing, so there the deadlines are exact. The grace is half of the client's timeout (the
 * starter's {@code ratelimit.redis.timeout}): a request spends at most 1.5 timeouts in the limiter while Redis answers
 * slowly; only while the application itself is too busy to send its call, up to {@link #BACKSTOP} timeouts (the limit
 * of the clients' own command timeouts).
 */
public final class FairDeadlines implements Timeouts {

	private final Timeouts timer;

	private final Progress progress;

	/** In timeouts, the longest a deadline waits for a busy application to send its call. */
	public static final int BACKSTOP = 4;

	private final long graceNanos;

	private final long backstopNanos;

	/** {@link System#nanoTime()}, or a test's clock of the same scale (the progress's times are on it). */
	private final LongSupplier nanoTime;

	/**
	 * @param timer where the deadlines run; for Lettuce the I/O thread, which reads replies before its due tasks
	 * @param progress what Redis has done with the client's calls
	 * @param timeout the client's timeout ({@code ratelimit.redis.timeout}), of which the grace is half
	 */
	FairDeadlines(Timeouts timer, Progress progress, Duration timeout) {
		this(timer, progress, timeout, System::nanoTime);
	}

	/** As above, on {@code nanoTime}: the timer's delays and the progress's times are on that clock. */
	FairDeadlines(Timeouts timer, Progress progress, Duration timeout, LongSupplier nanoTime) {
		this.timer = timer;
		this.progress = progress;
		this.graceNanos = timeout.toNanos() / 2;
		this.backstopNanos = timeout.toNanos() * (BACKSTOP - 1);
		this.nanoTime = nanoTime;
	}

	@Override
	public Runnable schedule(Runnable onTimeout, long delayNanos) {
		long due = this.nanoTime.getAsLong() + delayNanos;
		Deadline deadline = new Deadline(onTimeout, due + this.graceNanos, due + this.backstopNanos);
		deadline.at(delayNanos);
		return deadline::cancel;
	}

	/** What Redis has done with a client's calls, as {@link System#nanoTime()} values. */
	interface Progress {

		/**
		 * When the oldest call that Redis has not answered yet was sent, or {@code null}: none. A call that ended
		 * without an answer counts until Redis answers another.
		 */
		@Nullable Long oldestUnansweredSentAt();

		/** When Redis last answered a call of this client (long before any deadline before the first answer). */
		long lastAnsweredAt();

	}

	/** One request's deadline: due, then possibly waiting for Redis, then run. */
	private final class Deadline implements Runnable {

		private final Runnable onTimeout;

		/** The latest it waits for a Redis that answers slowly. */
		private final long latest;

		/** The latest it waits for a busy application to send its call. */
		private final long backstop;

		private volatile @Nullable Runnable cancelScheduled;

		private volatile boolean cancelled;

		/** Whether the deadline found Redis silent once and looks again after the client had a chance to read. */
		private boolean confirming;

		Deadline(Runnable onTimeout, long latest, long backstop) {
			this.onTimeout = onTimeout;
			this.latest = latest;
			this.backstop = backstop;
		}

		void at(long delayNanos) {
			this.cancelScheduled = FairDeadlines.this.timer.schedule(this, delayNanos);
		}

		@Override
		public void run() {
			if (this.cancelled) {
				return;
			}
			long now = FairDeadlines.this.nanoTime.getAsLong();
			long waitUntil = waitUntil(now);
			if (waitUntil - now > 0) {
				this.confirming = false;
				at(waitUntil - now);
				return;
			}
			if (!this.confirming) {
				// a timer due now may run before the next read of the client's threads: look again after it
				this.confirming = true;
				at(FairDeadlines.this.graceNanos / 10);
				return;
			}
			this.onTimeout.run();
		}

		/** Until when Redis should still be waited for ({@code now} or earlier: not at all). */
		private long waitUntil(long now) {
			long grace = FairDeadlines.this.graceNanos;
			long recheck = now + grace / 10;
			Long oldest = FairDeadlines.this.progress.oldestUnansweredSentAt();
			long answered = FairDeadlines.this.progress.lastAnsweredAt();
			boolean sentLate = (oldest != null) ? oldest + grace - now > 0 : now - answered < grace;
			if (sentLate) {
				return Math.min((oldest != null) ? oldest + grace : recheck, this.backstop);
			}
			if (oldest != null && answered - oldest > 0) {
				// answering, slowly: check again a little later, while Redis works through the calls before this one
				return Math.min(recheck, this.latest);
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
