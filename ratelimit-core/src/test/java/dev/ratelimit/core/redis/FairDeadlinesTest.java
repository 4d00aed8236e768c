package dev.ratelimit.core.redis;

import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule of the limiter's deadlines ({@link FairDeadlines}, docs/HTTP.md "When Redis fails"): a request's deadline
 * passes when Redis is silent or slow, not when the application is too busy to send its call or read the reply. On a
 * clock and a timer of the test's: a timeout of 200 ms, so a grace of 100 ms, a re-check every 10 ms and a backstop of
 * 4 timeouts (800 ms).
 */
class FairDeadlinesTest {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	private final ManualTimer timer = new ManualTimer();

	private final Redis redis = new Redis();

	private final FairDeadlines deadlines = new FairDeadlines(this.timer, this.redis, TIMEOUT, this.timer::now);

	/** When the request's timeout ran, in ms of the test's clock, or -1. */
	private long timedOutAt = -1;

	@Test
	void aSilentRedisFailsTheRequestAtItsTimeoutAfterOneLastLook() {
		this.redis.answeredAt = ms(-10_000);
		this.redis.oldestUnansweredSentAt = ms(0);
		schedule();
		this.timer.runUntil(ms(209));
		assertThat(this.timedOutAt).isEqualTo(-1);
		this.timer.runUntil(ms(1_000));
		// the due deadline looks once more a tenth of the grace later: the reply may be read between the two
		assertThat(this.timedOutAt).isEqualTo(210);
	}

	@Test
	void aCallTheBusyApplicationSentLateGetsItsGraceFromWhenItWasSent() {
		this.redis.answeredAt = ms(-10_000);
		schedule();
		this.timer.runUntil(ms(150));
		// the request's call waited for a client thread, and leaves at 190 ms
		this.redis.oldestUnansweredSentAt = ms(190);
		this.timer.runUntil(ms(289));
		assertThat(this.timedOutAt).as("Redis has had less than the grace since the call was sent").isEqualTo(-1);
		this.timer.runUntil(ms(1_000));
		assertThat(this.timedOutAt).as("Redis then had the grace and answered nothing").isEqualTo(300);
	}

	@Test
	void aReplyThatComesWhileTheDeadlineWaitsForALateCallEndsIt() {
		this.redis.answeredAt = ms(-10_000);
		this.redis.oldestUnansweredSentAt = ms(190);
		Runnable cancel = schedule();
		this.timer.runUntil(ms(250));
		cancel.run();
		this.timer.runUntil(ms(2_000));
		assertThat(this.timedOutAt).isEqualTo(-1);
	}

	@Test
	void aCallNotYetSentWaitsWhileRedisAnswersTheOthersUpToTheBackstop() {
		// the request's call is still queued in the application; Redis answers every other call at once
		this.timer.onEachTick = () -> {
			this.redis.oldestUnansweredSentAt = null;
			this.redis.answeredAt = this.timer.now();
		};
		schedule();
		this.timer.runUntil(ms(799));
		assertThat(this.timedOutAt).isEqualTo(-1);
		this.timer.runUntil(ms(2_000));
		// 4 timeouts from the request's start (the clients' own command timeouts end such a call), one look later
		assertThat(this.timedOutAt).isEqualTo(810);
	}

	@Test
	void aRedisThatAnswersSlowlyGetsHalfATimeoutMore() {
		this.redis.oldestUnansweredSentAt = ms(0);
		// Redis answered calls sent before this one, after it was sent: it works through them, slowly
		this.timer.onEachTick = () -> this.redis.answeredAt = this.timer.now() - ms(150);
		schedule();
		this.timer.runUntil(ms(299));
		assertThat(this.timedOutAt).isEqualTo(-1);
		this.timer.runUntil(ms(2_000));
		assertThat(this.timedOutAt).isEqualTo(310);
	}

	@Test
	void aDeadlineCancelledBeforeItIsDueNeverRuns() {
		this.redis.answeredAt = ms(-10_000);
		this.redis.oldestUnansweredSentAt = ms(0);
		Runnable cancel = schedule();
		this.timer.runUntil(ms(100));
		cancel.run();
		this.timer.runUntil(ms(5_000));
		assertThat(this.timedOutAt).isEqualTo(-1);
		assertThat(this.timer.pending()).isZero();
	}

	/** The request's deadline, a timeout from now (0 ms). */
	private Runnable schedule() {
		return this.deadlines.schedule(() -> {
			assertThat(this.timedOutAt).as("a deadline runs once").isEqualTo(-1);
			this.timedOutAt = TimeUnit.NANOSECONDS.toMillis(this.timer.now());
		}, TIMEOUT.toNanos());
	}

	private static long ms(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

	/** What Redis has done with the client's calls, as the test sets it. */
	private static final class Redis implements FairDeadlines.Progress {

		@Nullable Long oldestUnansweredSentAt;

		long answeredAt;

		@Override
		public @Nullable Long oldestUnansweredSentAt() {
			return this.oldestUnansweredSentAt;
		}

		@Override
		public long lastAnsweredAt() {
			return this.answeredAt;
		}

	}

	/** A timer on a clock of its own that moves only when the test runs it, task by task in time order. */
	private static final class ManualTimer implements Timeouts {

		private final PriorityQueue<Task> tasks = new PriorityQueue<>(
				Comparator.comparingLong((Task task) -> task.at).thenComparingLong((task) -> task.order));

		private long now;

		private long scheduled;

		/** Runs before each task, at its time: the test's Redis moving on. */
		Runnable onEachTick = () -> {
		};

		long now() {
			return this.now;
		}

		@Override
		public Runnable schedule(Runnable onTimeout, long delayNanos) {
			Task task = new Task(this.now + delayNanos, this.scheduled++, onTimeout);
			this.tasks.add(task);
			return () -> this.tasks.remove(task);
		}

		/** Runs the tasks due by {@code until}, those they schedule included, then stands at {@code until}. */
		void runUntil(long until) {
			while (!this.tasks.isEmpty() && this.tasks.peek().at <= until) {
				Task task = this.tasks.poll();
				this.now = task.at;
				this.onEachTick.run();
				task.run.run();
			}
			this.now = until;
		}

		int pending() {
			return this.tasks.size();
		}

		private record Task(long at, long order, Runnable run) {
		}

	}

}
