package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.limits.ConfiguredLimit;

import org.springframework.expression.EvaluationContext;

/**
 * Waiting for a permit ({@code @RateLimited(maxWait)}, {@code ratelimit.defaults.max-wait}): a denied call waits
 * exactly the denial's retry-after, is decided again (other callers may have taken the room meanwhile), and gives
 * up with the denial's {@link RateLimitExceededException} once the next wait would take it past its max wait. It
 * never polls: with nothing else competing, a permit after one wait costs two decisions. A cost that can never fit
 * fails at once.
 */
public final class PermitWaiter {

	private final RateLimitEnforcer enforcer;

	private final Duration defaultMaxWait;

	public PermitWaiter(RateLimitEnforcer enforcer, Duration defaultMaxWait) {
		this.enforcer = enforcer;
		this.defaultMaxWait = defaultMaxWait;
	}

	public RateLimitEnforcer enforcer() {
		return this.enforcer;
	}

	/**
	 * How long a call decided against {@code limits} may wait in all: the shortest max-wait among them. A limit
	 * without one of its own takes {@code ratelimit.defaults.max-wait} outside a request, and within one does not
	 * wait: a server answers 429 rather than hold its thread.
	 */
	public Duration maxWait(List<ConfiguredLimit> limits, boolean inRequest) {
		Duration shortest = null;
		for (ConfiguredLimit limit : limits) {
			Duration wait = (limit.maxWait() != null) ? limit.maxWait() : inRequest ? Duration.ZERO : this.defaultMaxWait;
			if (shortest == null || wait.compareTo(shortest) < 0) {
				shortest = wait;
			}
		}
		return (shortest != null) ? shortest : Duration.ZERO;
	}

	/**
	 * Decides on this thread, sleeping between decisions.
	 * @throws dev.ratelimit.spring.RateLimitException as {@link RateLimitEnforcer#enforceAndWait} throws it, the
	 * 429 once waiting would pass {@code maxWait} (or when the thread is interrupted while it waits, its interrupt
	 * flag set again)
	 * @param held where the leases of concurrency limits are kept, for the caller to give back when the call ends
	 * ({@link RateLimitEnforcer#release})
	 */
	public void enforce(LimitedRequest request, List<ConfiguredLimit> limits, EvaluationContext context,
			Duration maxWait, Reservation held) {
		enforce(request, (attempt) -> this.enforcer.enforceAndWait(attempt, limits, context, held), maxWait);
	}

	/**
	 * {@code decision} made on this thread until it admits, sleeping between attempts.
	 * @param decision one attempt: returns when admitted, throws {@link RateLimitExceededException} when denied
	 * @throws dev.ratelimit.spring.RateLimitException as {@link #enforce(LimitedRequest, List, EvaluationContext,
	 * Duration, Reservation)} throws it
	 */
	public void enforce(LimitedRequest request, Consumer<LimitedRequest> decision, Duration maxWait) {
		PermitWait wait = PermitWait.of(request, maxWait);
		LimitedRequest attempt = wait.firstAttempt();
		while (true) {
			try {
				decision.accept(attempt);
				return;
			}
			catch (RateLimitExceededException ex) {
				long waitNanos = wait.waitNanos(ex);
				if (waitNanos < 0) {
					throw ex;
				}
				try {
					TimeUnit.NANOSECONDS.sleep(waitNanos);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw ex;
				}
				attempt = wait.nextAttempt();
			}
		}
	}

	/**
	 * Decides without blocking a thread: a wait is a delay of {@link CompletableFuture#delayedExecutor}.
	 * @param held as {@link #enforce(LimitedRequest, List, EvaluationContext, Duration, Reservation)}'s
	 * @return a stage that completes when the call may go ahead, or exceptionally as {@link #enforce} throws
	 */
	public CompletableFuture<Void> enforceAsync(LimitedRequest request, List<ConfiguredLimit> limits,
			EvaluationContext context, Duration maxWait, Reservation held) {
		PermitWait wait = PermitWait.of(request, maxWait);
		return attempt(wait, wait.firstAttempt(), limits, context, held);
	}

	private CompletableFuture<Void> attempt(PermitWait wait, LimitedRequest attempt, List<ConfiguredLimit> limits,
			EvaluationContext context, Reservation held) {
		return this.enforcer.enforce(attempt, limits, context, held).toCompletableFuture().handle((admitted, failure) -> {
			if (failure == null) {
				return CompletableFuture.<Void>completedFuture(null);
			}
			long waitNanos = wait.waitNanos(failure);
			if (waitNanos < 0) {
				return CompletableFuture.<Void>failedFuture(PermitWait.cause(failure));
			}
			return CompletableFuture
				.runAsync(() -> {
				}, CompletableFuture.delayedExecutor(waitNanos, TimeUnit.NANOSECONDS))
				.thenCompose((waited) -> attempt(wait, wait.nextAttempt(), limits, context, held));
		}).thenCompose((next) -> next);
	}

}
