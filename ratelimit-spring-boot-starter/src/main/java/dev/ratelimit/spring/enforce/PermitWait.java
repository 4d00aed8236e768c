package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletionException;

import dev.ratelimit.core.MaxWait;
import dev.ratelimit.spring.RateLimitExceededException;

/**
 * One call's wait for a permit, the policy that every way of waiting follows (a sleeping thread, a delayed
 * {@code CompletableFuture}, a Reactor delay): the core's {@link MaxWait}, each attempt with a deadline of its own in
 * Redis ({@link RequestDeadline#anotherAttempt}); every failure other than a denial ends it at once.
 */
public final class PermitWait {

	private final LimitedRequest request;

	private final MaxWait wait;

	private PermitWait(LimitedRequest request, MaxWait wait) {
		this.request = request;
		this.wait = wait;
	}

	/** A wait of at most {@code maxWait} for {@code request}, whose first attempt is the request itself. */
	public static PermitWait of(LimitedRequest request, Duration maxWait) {
		return new PermitWait(request, MaxWait.of(maxWait));
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
		return this.wait.waitNanos(OptionalLong.of(denied.getRetryAfterMs()));
	}

	/** What failed a stage: the cause that a {@link CompletionException} wraps, else {@code failure} itself. */
	static Throwable cause(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
