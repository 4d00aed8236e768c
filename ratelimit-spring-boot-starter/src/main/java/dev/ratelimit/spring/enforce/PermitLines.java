package dev.ratelimit.spring.enforce;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.function.LongSupplier;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.MaxWait;
import dev.ratelimit.core.RateLimitDecision;
import org.jspecify.annotations.Nullable;

/**
 * This instance's callers waiting for a permit of rate limits, one line per client key, limits and costs
 * (docs/ALGORITHMS.md, "Waiting for a permit of rate limits"): only the callers a line lets ask Redis do; the others
 * wait behind them in the order they came, so that many callers waiting on one limit do not all wake at the same
 * retry-after and ask at once, one of them winning (a herd: about 11 script calls per permit with 16 callers).
 *
 * <p>
 * A denied caller with no one before it becomes the line's head: it waits its denial's retry-after and asks again.
 * An admitted caller hands over: its decision's room for more requests of the same costs lets that many callers
 * behind it ask at once; with no room, the next becomes the head and asks at the decision's more-after (when one more
 * unit fits). A caller that asked and was denied again goes back to the front, or becomes the head if there is none;
 * one that gives up, fails or is cancelled hands over at once. A call that comes while its line has a head or a caller
 * asking waits behind them without asking Redis: its first attempt is answered with the line's last denial, its times
 * reduced by the time since ({@link Place#behind}). So does a call that comes while a line whose callers were all
 * admitted is closed: until its last admission's more-after (at most 1 s), when it asks. A caller in a line gives up
 * when its max wait passes, and at once when the head will ask only after it; it never waits past its max wait.
 *
 * <p>
 * Lines are per instance: callers on several instances compete in Redis as before, one line per instance. A line
 * with no caller left is removed. Limits with a concurrency limit among them wait for a lease instead
 * ({@link LeaseWaits}); a line's costs are part of its key, so a cheap call never waits behind a costly one.
 */
final class PermitLines {

	private final ConcurrentHashMap<Key, PermitLine> lines = new ConcurrentHashMap<>();

	/** The limiter's time in ns, which the lines' denials and closes age on ({@link PermitLine}). */
	private final LongSupplier nanoTime;

	/** Lines on {@link System#nanoTime()}: a limiter on the system's clock. */
	PermitLines() {
		this(System::nanoTime);
	}

	/** @param nanoTime the limiter's time in ns: the application's {@code rateLimitClock} in ns when it has one */
	PermitLines(LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
	}

	/**
	 * A line's identity: one client key's limits, with their shapes, modes and costs (the requests' own equality; a
	 * rate limit's request has no lease id).
	 */
	record Key(String clientKey, List<LimitRequest> limits) {

		Key {
			// the same list when it is unmodifiable already, as a decision's requests are
			limits = List.copyOf(limits);
		}

	}

	/** Whether callers of these limits can wait in a line: rate limits only. */
	static boolean lined(List<LimitRequest> limits) {
		return !DenialCache.anyConcurrency(limits);
	}

	/**
	 * Every client's state was reset: no line answers with its last denial or stays closed, and each head asks at
	 * once. Callers behind a head stay in line behind it.
	 */
	void reset() {
		this.lines.values().forEach(PermitLine::reset);
	}

	/** The number of lines, for tests: a line with no caller left is removed. */
	int size() {
		return this.lines.size();
	}

	/** One call's place in the lines it waits in: at most one at a time (the client key that denied it last). */
	Place place(MaxWait wait) {
		return new Place(wait);
	}

	/** One caller, in a line or about to be. Its methods are called by one caller at a time. */
	final class Place {

		final MaxWait wait;

		private volatile @Nullable PermitLine line;

		/** The client key of its line. */
		private volatile @Nullable String clientKey;

		/** Its pause while in a line behind the head; completed once. */
		volatile @Nullable CompletableFuture<Boolean> pause;

		volatile @Nullable ScheduledFuture<?> timer;

		Place(MaxWait wait) {
			this.wait = wait;
		}

		/**
		 * The line's last denial, its times reduced by the time since, when this caller must wait behind another in
		 * the line of {@code clientKey} and {@code limits}; {@code null} when it may ask Redis (no line, or it is
		 * the head).
		 */
		@Nullable RateLimitDecision behind(String clientKey, List<LimitRequest> limits) {
			if (!lined(limits)) {
				return null;
			}
			PermitLine waited = PermitLines.this.lines.get(new Key(clientKey, limits));
			return (waited != null) ? waited.denialFor(this) : null;
		}

		/** The client key of the line it is in, or was in last. */
		@Nullable String clientKey() {
			return this.clientKey;
		}

		/**
		 * The wait after a denial of {@code limits} at {@code clientKey}: as the head of their line, the denial's
		 * retry-after; behind another, until the head hands over.
		 * @param fresh whether Redis gave {@code denial} just now (else it was remembered or the line's own)
		 * @return as {@link PermitWait#pause}: {@code null} to give up at once
		 */
		@Nullable CompletableFuture<Boolean> pause(String clientKey, List<LimitRequest> limits,
				RateLimitDecision denial, boolean fresh, long retryAfterMs) {
			Key key = new Key(clientKey, limits);
			PermitLine current = this.line;
			if (current != null && !current.key.equals(key)) {
				// denied at another client key (or cost) now: that line's next caller asks at once
				leave(null);
			}
			this.clientKey = clientKey;
			while (true) {
				PermitLine joined = PermitLines.this.lines.computeIfAbsent(key,
						(created) -> new PermitLine(created, PermitLines.this.lines, PermitLines.this.nanoTime));
				synchronized (joined) {
					if (joined.removed) {
						continue;
					}
					this.line = joined;
					if (fresh) {
						joined.denied(denial);
					}
					return joined.pause(this, retryAfterMs);
				}
			}
		}

		/**
		 * The call waits no more: admitted, leaving room for {@code room} more requests of its cost at once or else
		 * none until {@code roomAfterMs} ({@link RateLimitDecision#room()}); or not ({@code null}), and the next caller of
		 * its line asks at once.
		 */
		void leave(RateLimitDecision.@Nullable Room admitted) {
			PermitLine left = this.line;
			if (left == null) {
				return;
			}
			this.line = null;
			cancelTimer();
			synchronized (left) {
				left.leave(this, (admitted != null) ? admitted.count() : 0, (admitted != null) ? admitted.afterMs() : 0);
			}
		}

		void complete(boolean retry) {
			CompletableFuture<Boolean> paused = this.pause;
			if (paused != null) {
				paused.complete(retry);
			}
		}

		/**
		 * Cancels its timer, on the common pool: a cancel takes the timer out of the timer's queue under the queue's
		 * lock, which a Reactor or Netty thread must not wait for. A timer that fires meanwhile finds it moved on.
		 */
		void cancelTimer() {
			ScheduledFuture<?> scheduled = this.timer;
			if (scheduled != null) {
				this.timer = null;
				ForkJoinPool.commonPool().execute(() -> scheduled.cancel(false));
			}
		}

	}

}
