package dev.ratelimit.spring.enforce;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

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

	/**
	 * The longest a line whose callers were all admitted stays closed: a reset or a raised limit elsewhere is seen by
	 * the callers that come meanwhile within this time, as by every caller of a line with a head.
	 */
	private static final long CLOSED_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();

	/** The line of one client key's limits and costs. */
	static String key(String clientKey, List<LimitRequest> limits) {
		StringBuilder key = new StringBuilder(clientKey).append('\n');
		DenialCache.appendIdentity(key, limits);
		for (LimitRequest limit : limits) {
			key.append(limit.cost()).append(' ');
		}
		return key.toString();
	}

	/** Whether callers of these limits can wait in a line: rate limits only. */
	static boolean lined(List<LimitRequest> limits) {
		return !DenialCache.anyConcurrency(limits);
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

		private final MaxWait wait;

		private volatile @Nullable Line line;

		/** The client key of its line. */
		private volatile @Nullable String clientKey;

		/** Its pause while in a line behind the head; completed once. */
		private volatile @Nullable CompletableFuture<Boolean> pause;

		private volatile @Nullable ScheduledFuture<?> timer;

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
			Line waited = PermitLines.this.lines.get(key(clientKey, limits));
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
			String key = key(clientKey, limits);
			Line current = this.line;
			if (current != null && !current.key.equals(key)) {
				// denied at another client key (or cost) now: that line's next caller asks at once
				leave(null);
			}
			this.clientKey = clientKey;
			while (true) {
				Line joined = PermitLines.this.lines.computeIfAbsent(key, Line::new);
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
		 * none until {@code roomAfterMs} ({@link Reservation#room}); or not ({@code null}), and the next caller of
		 * its line asks at once.
		 */
		void leave(Reservation.@Nullable Room admitted) {
			Line left = this.line;
			if (left == null) {
				return;
			}
			this.line = null;
			cancelTimer();
			synchronized (left) {
				left.leave(this, (admitted != null) ? admitted.count() : 0, (admitted != null) ? admitted.afterMs() : 0);
			}
		}

		private void complete(boolean retry) {
			CompletableFuture<Boolean> paused = this.pause;
			if (paused != null) {
				paused.complete(retry);
			}
		}

		private void cancelTimer() {
			ScheduledFuture<?> scheduled = this.timer;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
		}

	}

	/**
	 * The callers of one line, guarded by its monitor: those asking Redis now, the head (the next to ask, waiting for
	 * its time), and those behind it, longest waiting first. Whoever is behind has a head or an asker before it.
	 */
	private final class Line {

		final String key;

		private final ArrayDeque<Place> behind = new ArrayDeque<>();

		private final Set<Place> asking = Collections.newSetFromMap(new IdentityHashMap<>());

		private @Nullable Place head;

		/** {@link System#nanoTime()} at which the head asks Redis. */
		private long headNextAt;

		private @Nullable RateLimitDecision lastDenial;

		private long deniedAt;

		/**
		 * {@link System#nanoTime()} until which the limits have no room, as the last admission said (its more-after):
		 * a line whose callers were all admitted keeps it, so that callers coming before then wait in it rather than
		 * each ask Redis and be denied; 0 when there is room or none is known.
		 */
		private long closedUntil;

		/** Whether the line is to be removed once it is no longer closed. */
		private boolean sweeping;

		private boolean removed;

		Line(String key) {
			this.key = key;
		}

		synchronized @Nullable RateLimitDecision denialFor(Place place) {
			if (this.lastDenial == null || this.head == place || this.asking.contains(place)
					|| (this.head == null && this.asking.isEmpty() && !closed())) {
				return null;
			}
			return DenialCache.aged(this.lastDenial, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.deniedAt));
		}

		void denied(RateLimitDecision denial) {
			this.lastDenial = denial;
			this.deniedAt = System.nanoTime();
		}

		@Nullable CompletableFuture<Boolean> pause(Place place, long retryAfterMs) {
			boolean asked = this.asking.remove(place);
			if (this.head == place) {
				this.head = null;
			}
			if (this.head == null && this.asking.isEmpty()) {
				// a closed line's head asks when the last admission said there is room again, not before
				long closedMs = closed() ? TimeUnit.NANOSECONDS.toMillis(this.closedUntil - System.nanoTime()) + 1 : 0;
				long waitNanos = place.wait.waitNanos(OptionalLong.of(Math.max(retryAfterMs, closedMs)));
				if (waitNanos < 0) {
					// it gives up: the next caller asks at once
					handOver(0, 0);
					return null;
				}
				CompletableFuture<Boolean> pause = new CompletableFuture<>();
				place.pause = pause;
				lead(place, waitNanos);
				return pause;
			}
			long left = place.wait.remainingNanos();
			if (left <= 0 || (this.head != null && this.headNextAt - System.nanoTime() > left)) {
				// the head asks again only after this caller's max wait
				removeIfIdle();
				return null;
			}
			CompletableFuture<Boolean> pause = new CompletableFuture<>();
			place.pause = pause;
			if (asked) {
				// it came before those behind
				this.behind.addFirst(place);
			}
			else {
				this.behind.addLast(place);
			}
			place.timer = WaitTimer.after(left, () -> {
				synchronized (this) {
					if (!this.behind.remove(place)) {
						return;
					}
					removeIfIdle();
				}
				pause.complete(false);
			});
			return pause;
		}

		/**
		 * {@code place} leaves the line: admitted with room for {@code room} more requests of its cost (the next
		 * {@code room} callers ask at once), or with none until {@code roomAfterMs}; 0 and 0 when it gave up.
		 */
		void leave(Place place, long room, long roomAfterMs) {
			boolean lined = this.asking.remove(place) | this.behind.remove(place);
			if (this.head == place) {
				this.head = null;
				lined = true;
			}
			// one already out of the line (its max wait passed, or it gave up where it was told to) hands nothing over
			if (!lined) {
				return;
			}
			if (room > 0) {
				this.closedUntil = 0;
			}
			else if (roomAfterMs > 0) {
				this.closedUntil = System.nanoTime() + Math.min(TimeUnit.MILLISECONDS.toNanos(roomAfterMs), CLOSED_NANOS);
			}
			handOver(room, roomAfterMs);
		}

		private boolean closed() {
			return this.closedUntil != 0 && this.closedUntil - System.nanoTime() > 0;
		}

		/**
		 * Lets callers behind ask at once for {@code room} more requests, less those already asking (each will take
		 * one); with none asking and no head, the next asks after {@code roomAfterMs}.
		 */
		private void handOver(long room, long roomAfterMs) {
			for (long free = room - this.asking.size(); free > 0 && !this.behind.isEmpty(); free--) {
				lead(this.behind.poll(), 0);
			}
			if (this.head == null && this.asking.isEmpty() && !this.behind.isEmpty()) {
				Place next = this.behind.poll();
				long roomAfterNanos = TimeUnit.MILLISECONDS.toNanos(roomAfterMs);
				if (roomAfterNanos > next.wait.remainingNanos()) {
					// the limit has room only after its max wait: it gives up, and so may the next
					complete(next, false);
					handOver(0, roomAfterMs);
					return;
				}
				lead(next, roomAfterNanos);
			}
			removeIfIdle();
		}

		/** {@code place} asks Redis after {@code nanos}: at once (0), or as the head until then. */
		private void lead(Place place, long nanos) {
			place.cancelTimer();
			if (nanos == 0) {
				this.asking.add(place);
				complete(place, true);
				return;
			}
			this.head = place;
			this.headNextAt = System.nanoTime() + nanos;
			place.timer = WaitTimer.after(nanos, () -> {
				synchronized (this) {
					if (this.head != place) {
						return;
					}
					this.head = null;
					this.asking.add(place);
				}
				place.complete(true);
			});
		}

		private void complete(Place place, boolean retry) {
			ForkJoinPool.commonPool().execute(() -> place.complete(retry));
		}

		private void removeIfIdle() {
			if (this.head != null || !this.asking.isEmpty() || !this.behind.isEmpty() || this.removed) {
				return;
			}
			if (closed()) {
				// kept while closed, for the callers that come meanwhile; removed then if still idle
				if (!this.sweeping) {
					this.sweeping = true;
					WaitTimer.after(this.closedUntil - System.nanoTime(), () -> {
						synchronized (this) {
							this.sweeping = false;
							removeIfIdle();
						}
					});
				}
				return;
			}
			this.removed = true;
			PermitLines.this.lines.remove(this.key, this);
		}

	}

}
