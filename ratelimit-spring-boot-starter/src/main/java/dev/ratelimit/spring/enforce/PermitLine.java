package dev.ratelimit.spring.enforce;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import dev.ratelimit.core.RateLimitDecision;
import org.jspecify.annotations.Nullable;

/**
 * The callers of one line of {@link PermitLines}, guarded by its monitor: those asking Redis now, the head (the next
 * to ask, waiting for its time), and those behind it, longest waiting first. Whoever is behind has a head or an asker
 * before it.
 *
 * <p>
 * Two clocks: what ages with the limits' decisions (the last denial's age, the time until which the limits have no
 * room) is measured on the limiter's time, {@code nanoTime} (the application's {@code rateLimitClock} when it has one),
 * so that a test clock moved past it ends it as it ends the limiter's; when the head asks is a pause, measured on
 * {@link System#nanoTime()} as its timer runs.
 */
final class PermitLine {

	/**
	 * The longest a line whose callers were all admitted stays closed: a reset or a raised limit elsewhere is seen by
	 * the callers that come meanwhile within this time, as by every caller of a line with a head.
	 */
	private static final long CLOSED_NANOS = TimeUnit.SECONDS.toNanos(1);

	final PermitLines.Key key;

	private final Map<PermitLines.Key, PermitLine> lines;

	/** The limiter's time in ns: {@link System#nanoTime()}, or the application's clock. */
	private final LongSupplier nanoTime;

	private final ArrayDeque<PermitLines.Place> behind = new ArrayDeque<>();

	private final Set<PermitLines.Place> asking = Collections.newSetFromMap(new IdentityHashMap<>());

	private PermitLines.@Nullable Place head;

	/** {@link System#nanoTime()} at which the head asks Redis. */
	private long headNextAt;

	private @Nullable RateLimitDecision lastDenial;

	/** {@link #nanoTime} of the last denial. */
	private long deniedAt;

	/**
	 * {@link #nanoTime} until which the limits have no room, as the last admission said (its more-after):
	 * a line whose callers were all admitted keeps it, so that callers coming before then wait in it rather than
	 * each ask Redis and be denied; 0 when there is room or none is known.
	 */
	private long closedUntil;

	/** Whether the line is to be removed once it is no longer closed. */
	private boolean sweeping;

	/** Whether it was removed from the lines: a caller that finds it so joins a new one. */
	boolean removed;

	/**
	 * @param lines where the line is, to remove it from once no caller is left
	 * @param nanoTime the limiter's time in ns
	 */
	PermitLine(PermitLines.Key key, Map<PermitLines.Key, PermitLine> lines, LongSupplier nanoTime) {
		this.key = key;
		this.lines = lines;
		this.nanoTime = nanoTime;
	}

	synchronized @Nullable RateLimitDecision denialFor(PermitLines.Place place) {
		if (this.lastDenial == null || this.head == place || this.asking.contains(place)
				|| (this.head == null && this.asking.isEmpty() && !closed())) {
			return null;
		}
		// no sooner than the line asks next: admissions since the denial may have moved that later
		long now = this.nanoTime.getAsLong();
		long untilAsk = (this.head != null) ? this.headNextAt - System.nanoTime()
				: closed() ? this.closedUntil - now : 0;
		return this.lastDenial.aged(TimeUnit.NANOSECONDS.toMillis(now - this.deniedAt))
			.withRetryAfterAtLeast(TimeUnit.NANOSECONDS.toMillis(Math.max(0, untilAsk) + 999_999));
	}

	void denied(RateLimitDecision denial) {
		this.lastDenial = denial;
		this.deniedAt = this.nanoTime.getAsLong();
	}

	@Nullable CompletableFuture<Boolean> pause(PermitLines.Place place, long retryAfterMs) {
		boolean asked = this.asking.remove(place);
		if (this.head == place) {
			this.head = null;
		}
		if (this.head == null && this.asking.isEmpty()) {
			// a closed line's head asks when the last admission said there is room again, not before
			long closedMs = closed() ? TimeUnit.NANOSECONDS.toMillis(this.closedUntil - this.nanoTime.getAsLong()) + 1 : 0;
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
	void leave(PermitLines.Place place, long room, long roomAfterMs) {
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
			this.closedUntil = this.nanoTime.getAsLong() + Math.min(TimeUnit.MILLISECONDS.toNanos(roomAfterMs), CLOSED_NANOS);
		}
		handOver(room, roomAfterMs);
	}

	private boolean closed() {
		return this.closedUntil != 0 && this.closedUntil - this.nanoTime.getAsLong() > 0;
	}

	/**
	 * The limits' state was reset: the last denial and the time without room no longer hold, and a head waiting out
	 * a wait they said asks at once.
	 */
	synchronized void reset() {
		this.lastDenial = null;
		this.closedUntil = 0;
		PermitLines.Place waiting = this.head;
		if (waiting != null) {
			this.head = null;
			lead(waiting, 0);
		}
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
			PermitLines.Place next = this.behind.poll();
			long roomAfterNanos = TimeUnit.MILLISECONDS.toNanos(roomAfterMs);
			if (roomAfterNanos > next.wait.remainingNanos()) {
				// the limit has room only after its max wait: it gives up, and so may the next
				next.cancelTimer();
				complete(next, false);
				handOver(0, roomAfterMs);
				return;
			}
			lead(next, roomAfterNanos);
		}
		removeIfIdle();
	}

	/** {@code place} asks Redis after {@code nanos}: at once (0), or as the head until then. */
	private void lead(PermitLines.Place place, long nanos) {
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

	private void complete(PermitLines.Place place, boolean retry) {
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
				// at most the longest close, in case the limiter's clock went back (a test's clock set again)
				WaitTimer.after(Math.min(this.closedUntil - this.nanoTime.getAsLong(), CLOSED_NANOS), () -> {
					synchronized (this) {
						this.sweeping = false;
						removeIfIdle();
					}
				});
			}
			return;
		}
		this.removed = true;
		this.lines.remove(this.key, this);
	}

}
