package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.core.MaxWait;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.jspecify.annotations.Nullable;

/**
 * One call's wait for a permit, the policy that every way of waiting follows (a blocked thread, a
 * {@code CompletableFuture}, a {@code Mono}): the core's {@link MaxWait}, each attempt with a deadline of its own in
 * Redis ({@link RequestDeadline#anotherAttempt}); every failure other than a denial ends it at once. A denial by
 * concurrency limits alone waits for a release of a lease ({@link LeaseWaits}) up to the max wait; any other waits
 * its retry-after. Made by {@link PermitWaiter#begin}; {@link #done(Throwable)} when the call waits no more.
 */
public final class PermitWait {

	private final LimitedRequest request;

	private final MaxWait wait;

	private final Reservation held;

	private final LeaseWaits leases;

	/** The call's place in the lines of callers waiting for a permit; {@code null} when it may not wait. */
	private final PermitLines.@Nullable Place place;

	private final List<ConfiguredLimit> limits;

	private final DecisionObservations observations;

	/** The call's wait for a lease, from its first denial by concurrency limits alone. */
	private LeaseWaits.@Nullable Waiter waiter;

	/**
	 * Whether {@link #done} has run: once only, whichever way the call ended (a subscriber's cancel may race its
	 * completion).
	 */
	private final AtomicBoolean finished = new AtomicBoolean();

	/** The pause under way, or the last one. */
	private volatile @Nullable CompletableFuture<Boolean> pausing;

	/** Whether the caller went away ({@link #cancel()}). */
	private volatile boolean cancelled;

	/** The wait's observation, from its first pause: none for a call admitted, or given up, at once. */
	private DecisionObservations.@Nullable Observed observed;

	PermitWait(LimitedRequest request, List<ConfiguredLimit> limits, Duration maxWait, Reservation held,
			LeaseWaits leases, PermitLines lines, DecisionObservations observations) {
		this.request = request;
		this.limits = limits;
		this.wait = MaxWait.of(maxWait);
		this.held = held;
		this.leases = leases;
		this.observations = observations;
		this.place = maxWait.isZero() ? null : lines.place(this.wait);
		if (this.place != null) {
			held.waits().waitIn(this.place);
		}
	}

	/** What the call's attempts keep. */
	Reservation held() {
		return this.held;
	}

	/** The request of the first attempt. */
	public LimitedRequest firstAttempt() {
		return this.request;
	}

	/** The request of a later attempt: the same request with a full deadline in Redis of its own. */
	public LimitedRequest nextAttempt() {
		if (this.waiter != null) {
			this.waiter.attempting();
		}
		return RequestDeadline.anotherAttempt(this.request);
	}

	/**
	 * The wait after an attempt failed with {@code failure}.
	 * @return {@code null} to give up at once (not a denial, a cost that never fits, or a retry-after that would end
	 * after the max wait); else a stage that completes with {@code true} to decide again, or {@code false} to give up
	 * (the max wait passed while waiting for a lease); cancelling it ends the wait
	 */
	public @Nullable CompletableFuture<Boolean> pause(Throwable failure) {
		if (this.cancelled) {
			return null;
		}
		CompletableFuture<Boolean> pause = pauseAfter(failure);
		if (pause != null && this.observed == null) {
			this.observed = this.observations.waiting(this.request, this.limits);
		}
		this.pausing = pause;
		if (pause != null && this.cancelled) {
			// cancelled while this pause began
			pause.cancel(false);
		}
		return pause;
	}

	/**
	 * The caller went away (its stage cancelled): the pause under way, if any, is cancelled, and the call waits no
	 * more (no later pause begins). A decision under way still completes.
	 */
	public void cancel() {
		this.cancelled = true;
		CompletableFuture<Boolean> pause = this.pausing;
		if (pause != null) {
			pause.cancel(false);
		}
	}

	private @Nullable CompletableFuture<Boolean> pauseAfter(Throwable failure) {
		Throwable cause = cause(failure);
		if (!(cause instanceof RateLimitExceededException denied) || denied.isNever()) {
			return null;
		}
		WaitNotes.RateDenial rate = this.held.waits().takeRateDenial();
		if (rate != null && this.place != null) {
			return this.place.pause(rate.clientKey(), rate.limits(), rate.decision(), rate.fresh(),
					denied.getRetryAfterMs());
		}
		WaitNotes.LeaseDenial lease = this.held.waits().takeLeaseDenial();
		if (lease != null && this.leases.announced()) {
			long left = this.wait.remainingNanos();
			if (left <= 0) {
				return null;
			}
			long expiry = TimeUnit.MILLISECONDS.toNanos(lease.retryAfterMs());
			if (this.waiter == null) {
				this.waiter = this.leases.waiter();
			}
			return this.waiter.pause(lease.clientKey(), lease.limits(), expiry, left);
		}
		long waitNanos = this.wait.waitNanos(OptionalLong.of(denied.getRetryAfterMs()));
		return (waitNanos < 0) ? null : WaitTimer.delay(waitNanos);
	}

	/**
	 * {@link #pause} on this thread: whether to decide again. An interrupt ends the wait (false), the thread's flag
	 * set again.
	 */
	public boolean await(Throwable failure) {
		CompletableFuture<Boolean> pause = pause(failure);
		if (pause == null) {
			return false;
		}
		try {
			return pause.get();
		}
		catch (InterruptedException ex) {
			pause.cancel(false);
			Thread.currentThread().interrupt();
			return false;
		}
		catch (ExecutionException | CancellationException ex) {
			return false;
		}
	}

	/**
	 * The call waits no more: admitted ({@code failure} {@code null}), given up (its 429, or what else failed: the
	 * observation's error) or cancelled (a {@link CancellationException}). The wait's observation, if it paused, stops
	 * with that outcome.
	 */
	public void done(@Nullable Throwable failure) {
		if (!this.finished.compareAndSet(false, true)) {
			return;
		}
		PermitLines.Place lined = this.place;
		if (lined != null) {
			String clientKey = lined.clientKey();
			lined.leave((failure == null && clientKey != null) ? this.held.waits().room(clientKey) : null);
		}
		LeaseWaits.Waiter waited = this.waiter;
		if (waited != null) {
			WaitNotes.LeaseRoom room = (failure == null) ? this.held.waits().takeLeaseRoom() : null;
			if (room != null) {
				waited.roomLeft(room.clientKey(), room.limits());
			}
			waited.done();
		}
		DecisionObservations.Observed observation = this.observed;
		if (observation == null) {
			return;
		}
		this.observed = null;
		Throwable cause = (failure != null) ? cause(failure) : null;
		if (cause instanceof CancellationException) {
			observation.stop(Outcome.CANCELLED);
			return;
		}
		if (cause != null && !(cause instanceof RateLimitExceededException)) {
			observation.error(cause);
		}
		observation.stop((cause == null) ? Outcome.ALLOWED : Outcome.DENIED);
	}

	/** What failed a stage: the cause that a {@link CompletionException} wraps, else {@code failure} itself. */
	static Throwable cause(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
