package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.limits.ConfiguredLimit;

import org.springframework.expression.EvaluationContext;

/**
 * Waiting for a permit ({@code @RateLimited(maxWait)}, a rule's {@code max-wait}, {@code ratelimit.defaults.max-wait}):
 * a denied call waits, is decided again (other callers may have taken the room meanwhile), and gives up with the denial's
 * {@link RateLimitExceededException} once waiting would take it past its max wait. A rate limit's denial waits
 * exactly its retry-after, so with nothing else competing a permit after one wait costs two decisions; a concurrency
 * limit's waits for a release of a lease ({@link LeaseWaits}). It never polls. A cost that can never fit fails at once.
 */
public final class PermitWaiter {

	private final RateLimitEnforcer enforcer;

	private final Duration defaultMaxWait;

	private final LeaseWaits leases;

	private final PermitLines lines;

	/**
	 * Waits whose lines age on {@link System#nanoTime()}: a limiter on the system's clock.
	 * @param defaultMaxWait {@code ratelimit.defaults.max-wait}
	 * @param leases the callers waiting for a lease, woken by releases
	 */
	public PermitWaiter(RateLimitEnforcer enforcer, Duration defaultMaxWait, LeaseWaits leases) {
		this(enforcer, defaultMaxWait, leases, System::nanoTime);
	}

	/**
	 * @param defaultMaxWait {@code ratelimit.defaults.max-wait}
	 * @param leases the callers waiting for a lease, woken by releases
	 * @param nanoTime the limiter's time in ns, on which the lines' denials age: the application's
	 * {@code rateLimitClock} in ns when it has one (the waits themselves are pauses of real time)
	 */
	public PermitWaiter(RateLimitEnforcer enforcer, Duration defaultMaxWait, LeaseWaits leases, LongSupplier nanoTime) {
		this.enforcer = enforcer;
		this.defaultMaxWait = defaultMaxWait;
		this.leases = leases;
		this.lines = new PermitLines(nanoTime);
	}

	/** Every client's state was reset: the lines' denials and closes no longer hold ({@link PermitLines#reset}). */
	void reset() {
		this.lines.reset();
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
	 * A call's wait, of at most {@code maxWait}, whose attempts keep what they take in {@code held}.
	 * @throws IllegalArgumentException when {@code maxWait} is negative
	 */
	public PermitWait begin(LimitedRequest request, List<ConfiguredLimit> limits, Duration maxWait, Reservation held) {
		return new PermitWait(request, limits, maxWait, held, this.leases, this.lines, this.enforcer.observations());
	}

	/**
	 * Decides on this thread, blocking it between decisions.
	 * @throws dev.ratelimit.spring.RateLimitException as {@link RateLimitEnforcer#enforceAndWait} throws it, the
	 * 429 once waiting would pass {@code maxWait} (or when the thread is interrupted while it waits, its interrupt
	 * flag set again)
	 * @param held where the leases of concurrency limits are kept, for the caller to give back when the call ends
	 * ({@link RateLimitEnforcer#release})
	 */
	public void enforce(LimitedRequest request, List<ConfiguredLimit> limits, EvaluationContext context,
			Duration maxWait, Reservation held) {
		enforce(request, limits, (attempt) -> this.enforcer.enforceAndWait(attempt, limits, context, held), maxWait, held);
	}

	/**
	 * {@code decision} made on this thread until it admits, blocking it between attempts.
	 * @param decision one attempt: returns when admitted, throws {@link RateLimitExceededException} when denied
	 * @param held what the attempts keep (and a denial by concurrency limits alone notes)
	 * @throws dev.ratelimit.spring.RateLimitException as {@link #enforce(LimitedRequest, List, EvaluationContext,
	 * Duration, Reservation)} throws it
	 */
	public void enforce(LimitedRequest request, List<ConfiguredLimit> limits, Consumer<LimitedRequest> decision,
			Duration maxWait, Reservation held) {
		PermitWait wait = begin(request, limits, maxWait, held);
		Throwable failure = null;
		try {
			LimitedRequest attempt = wait.firstAttempt();
			while (true) {
				try {
					decision.accept(attempt);
					return;
				}
				catch (RateLimitExceededException ex) {
					if (!wait.await(ex)) {
						throw ex;
					}
					attempt = wait.nextAttempt();
				}
			}
		}
		catch (RuntimeException | Error ex) {
			failure = ex;
			throw ex;
		}
		finally {
			wait.done(failure);
		}
	}

	/**
	 * Decides without blocking a thread.
	 * @param held as {@link #enforce(LimitedRequest, List, EvaluationContext, Duration, Reservation)}'s
	 * @param caller the stage the caller was given: once it is cancelled, the wait ends (the stage returned here then
	 * completes with a {@link java.util.concurrent.CancellationException}, or as a decision under way ends)
	 * @return a stage that completes when the call may go ahead, or exceptionally as {@link #enforce} throws
	 */
	public CompletableFuture<Void> enforceAsync(LimitedRequest request, List<ConfiguredLimit> limits,
			EvaluationContext context, Duration maxWait, Reservation held, CompletableFuture<?> caller) {
		PermitWait wait = begin(request, limits, maxWait, held);
		caller.whenComplete((result, failure) -> {
			if (caller.isCancelled()) {
				wait.cancel();
			}
		});
		return attempt(wait, wait.firstAttempt(), limits, context, held).whenComplete((admitted, failure) -> wait.done(failure));
	}

	private CompletableFuture<Void> attempt(PermitWait wait, LimitedRequest attempt, List<ConfiguredLimit> limits,
			EvaluationContext context, Reservation held) {
		return this.enforcer.enforce(attempt, limits, context, held).toCompletableFuture().handle((admitted, failure) -> {
			if (failure == null) {
				return CompletableFuture.<Void>completedFuture(null);
			}
			CompletableFuture<Boolean> pause = wait.pause(failure);
			if (pause == null) {
				return CompletableFuture.<Void>failedFuture(PermitWait.cause(failure));
			}
			return pause.thenCompose((retry) -> retry ? attempt(wait, wait.nextAttempt(), limits, context, held)
					: CompletableFuture.<Void>failedFuture(PermitWait.cause(failure)));
		}).thenCompose((next) -> next);
	}

}
