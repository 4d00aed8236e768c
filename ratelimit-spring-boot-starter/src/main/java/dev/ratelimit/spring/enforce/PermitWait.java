package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.spring.RateLimitExceededException;

/**
 * One call's wait for a permit, the policy that every way of waiting follows (a sleeping thread, a delayed
 * {@code CompletableFuture}, a Reactor delay): after a denial, wait its retry-after and decide again, each attempt
 * with a deadline of its own in Redis ({@link RequestDeadline#anotherAttempt}), until {@code maxWait} from the first
 * attempt has passed. A denial that no wait can cure (the cost never fits) and every other failure end it at once.
 */
public final class PermitWait {

	private final LimitedRequest request;

	/** {@link System#nanoTime()} after which no further attempt begins. */
	private final long deadline;

	private PermitWait(LimitedRequest request, long deadline) {
		this.request = request;
		this.deadline = deadline;
	}

	/** A wait of at most {@code maxWait} for {@code request}, whose first attempt is the request itself. */
	public static PermitWait of(LimitedRequest request, Duration maxWait) {
		return new PermitWait(request, System.nanoTime() + maxWait.toNanos());
	}

	/** The request of the first attempt. */
	public LimitedRequest firstAttempt() {
		return this.request;
	}

	/** The request of a later attempt: the same request with a full deadline in Redis of its own. */
	public LimitedRequest nextAttempt() {
		return RequestDeadline.anotherAttempt(this.request);
	}

	/**
	 * How long to wait, in ns, before deciding again after an attempt failed with {@code failure}: the denial's
	 * retry-after; -1 to give up (not a denial, a cost that never fits, or a wait that would end after
	 * {@code maxWait}).
	 */
	public long waitNanos(Throwable failure) {
		Throwable cause = cause(failure);
		if (!(cause instanceof RateLimitExceededException denied) || denied.isNever()) {
			return -1;
		}
		long waitNanos = TimeUnit.MILLISECONDS.toNanos(denied.getRetryAfterMs());
		return (System.nanoTime() + waitNanos - this.deadline > 0) ? -1 : waitNanos;
	}

	/** What failed a stage: the cause that a {@link CompletionException} wraps, else {@code failure} itself. */
	static Throwable cause(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
