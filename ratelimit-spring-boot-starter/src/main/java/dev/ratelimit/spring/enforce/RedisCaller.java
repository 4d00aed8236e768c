package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.core.redis.Timeouts;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.observation.RateLimitOperation;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The one timed call to Redis: each call of the enforcer bounded by its request's deadline
 * ({@code ratelimit.redis.timeout} from the request's first decision, {@link RequestDeadline}), timed and counted in
 * the metrics, and moving the fail-local breaker ({@link LocalFallback}) either way. The asynchronous call is the only
 * one; a caller that may block waits for it ({@link #await}).
 *
 * <p>
 * When a call is due, the Redis client judges whether Redis or the busy application made it late ({@link Timeouts}:
 * with Lettuce or Jedis, {@code FairDeadlines}).
 */
public final class RedisCaller {

	private final RateLimiter limiter;

	private final long timeoutNanos;

	private final Timeouts timeouts;

	private final RateLimitEventRecorder events;

	private final LocalFallback fallback;

	private final LeaseRenewals renewals = new LeaseRenewals(this::renew, this::giveBack);

	/** The leases' renewals and releases ({@link RateLimitEnforcer} observes the rest). */
	private final DecisionObservations observations;

	/**
	 * @param limiter the limiter, Redis or in memory
	 * @param timeout {@code ratelimit.redis.timeout}: one request's time in the limiter, positive
	 * @param timeouts the Redis client's deadlines
	 * @param events metrics and log lines
	 * @param fallback the fail-local breaker and this instance's local state
	 * @param observations of the leases' renewals and releases
	 */
	public RedisCaller(RateLimiter limiter, Duration timeout, Timeouts timeouts, RateLimitEventRecorder events,
			LocalFallback fallback, DecisionObservations observations) {
		this.limiter = limiter;
		this.timeoutNanos = timeout.toNanos();
		this.timeouts = timeouts;
		this.events = events;
		this.fallback = fallback;
		this.observations = observations;
		events.leases(this.renewals::held);
	}

	/** The request's deadline ({@link System#nanoTime()}), set by its first decision. */
	long deadline(LimitedRequest request) {
		return RequestDeadline.of(request, this.timeoutNanos);
	}

	/** Keeps what is left of an admitted call's deadline for its charge. */
	void keepForCharge(LimitedRequest admitted) {
		RequestDeadline.keepForCharge(admitted, this.timeoutNanos);
	}

	/** The deadline of the charge after a call charged by outcome. */
	long chargeDeadline(LimitedRequest request) {
		return RequestDeadline.forCharge(request, this.timeoutNanos);
	}

	/** Whether these limits are decided without asking Redis, because the fail-local breaker is open. */
	boolean spared(List<ConfiguredLimit> limits) {
		return LocalFallback.spareRedisFor(limits) && this.fallback.skipRedis();
	}

	/** A decision of Redis, or a failure when Redis fails or has not answered by {@code deadline}. */
	CompletableFuture<RateLimitDecision> decide(String clientKey, List<LimitRequest> limits, long deadline) {
		return bounded(() -> this.limiter.tryAcquireAsync(clientKey, limits), deadline);
	}

	/** {@link #decide}, waited for on this thread: the decision, or {@code null} when Redis did not decide. */
	@Nullable RateLimitDecision decideAndWait(String clientKey, List<LimitRequest> limits, long deadline) {
		return await(decide(clientKey, limits, deadline));
	}

	/** A read without consuming, waited for on this thread: the state, or {@code null} when Redis did not answer. */
	@Nullable LimitDecision peekAndWait(String clientKey, LimitRequest limit, long deadline) {
		return await(bounded(() -> this.limiter.peekAsync(clientKey, limit), deadline));
	}

	/**
	 * A settlement, waited for on this thread: the states after it, or {@code null} when Redis did not settle by
	 * {@code deadline}.
	 */
	@Nullable RateLimitDecision settleAndWait(String clientKey, List<Settlement> settlements, long deadline) {
		return await(bounded(() -> this.limiter.settleAsync(clientKey, settlements), deadline));
	}

	/** Gives back every lease {@code held} holds, without waiting ({@link #release(Reservation.Lease)}). */
	void release(Reservation held) {
		for (Reservation.Lease lease : held.takeLeases()) {
			release(lease);
		}
	}

	/** A lease taken for a call that runs on: renewed until the call gives it back ({@link LeaseRenewals}). */
	void renewing(Reservation.Lease lease) {
		this.renewals.hold(lease);
	}

	/**
	 * Gives back {@code lease} without waiting, and no longer renews it: in this instance's memory, or sent to Redis
	 * with a timeout of its own ({@code ratelimit.redis.timeout}, not a request's deadline). A failure is counted and
	 * logged as any; the lease then expires after its lease time.
	 */
	void release(Reservation.Lease lease) {
		this.renewals.release(lease);
	}

	/** {@link #release(Reservation.Lease)}, sent. */
	private void giveBack(Reservation.Lease lease) {
		List<Settlement> settlements = Leases.giveBack(lease);
		if (lease.local()) {
			this.fallback.settle(lease.clientKey(), settlements);
			return;
		}
		DecisionObservations.Observed observed = this.observations.lease(RateLimitOperation.LEASE_RELEASE,
				lease.leases());
		CompletableFuture<?> release;
		try (Observation.Scope scope = observed.openScope()) {
			release = bounded(() -> this.limiter.settleAsync(lease.clientKey(), settlements),
					System.nanoTime() + this.timeoutNanos);
		}
		release.whenComplete((released, failure) -> {
			if (failure != null) {
				failed(failure);
				observed.error(failure);
				observed.stop(Outcome.FAILED);
			}
			else {
				answered();
				observed.stop(Outcome.RELEASED);
			}
		});
	}

	/**
	 * Renews {@code lease}: the same acquire again, with its own timeout. Completes with whether the call still holds
	 * it; a lease lost (expired before it was renewed, or released by an operator) is taken again when the limit has
	 * room, else the call runs on without one, which is logged. A failure of Redis completes with true: the next
	 * renewal tries again.
	 */
	private CompletionStage<Boolean> renew(Reservation.Lease lease) {
		if (lease.local()) {
			return CompletableFuture.completedFuture(held(this.fallback.renew(lease.clientKey(), lease.leases())));
		}
		DecisionObservations.Observed observed = this.observations.lease(RateLimitOperation.LEASE_RENEWAL,
				lease.leases());
		CompletableFuture<RateLimitDecision> renewal;
		try (Observation.Scope scope = observed.openScope()) {
			renewal = bounded(() -> this.limiter.tryAcquireAsync(lease.clientKey(), lease.leases()),
					System.nanoTime() + this.timeoutNanos);
		}
		return renewal.handle((decision, failure) -> {
			if (failure != null) {
				failed(failure);
				observed.error(failure);
				observed.stop(Outcome.FAILED);
				return true;
			}
			answered();
			boolean held = held(decision);
			observed.stop(held ? Outcome.RENEWED : Outcome.LOST);
			return held;
		});
	}

	private boolean held(RateLimitDecision renewal) {
		if (renewal.allowed() && renewal.shadowDenied().isEmpty()) {
			return true;
		}
		this.events.leaseLost(
				renewal.decisions().stream().filter((limit) -> !limit.allowed()).map((limit) -> limit.request().name()).toList());
		return false;
	}

	/** Settles what this instance's memory reserved while Redis failed. */
	void settleLocally(String clientKey, List<Settlement> settlements) {
		this.fallback.settle(clientKey, settlements);
	}

	/** Redis answered: the breaker closes, and a log line says so when it was open. */
	void answered() {
		if (this.fallback.redisAnswered()) {
			this.events.redisAnsweredAgain();
		}
	}

	/** Redis failed or was late: logged and counted, the breaker told. */
	void failed(Throwable failure) {
		this.events.redisFailed(unwrap(failure));
		this.fallback.redisFailed();
	}

	private <T> @Nullable T await(CompletableFuture<T> call) {
		try {
			// completes by the deadline on its own: no timeout of this thread's to add
			T answer = call.get();
			answered();
			return answer;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
		catch (ExecutionException ex) {
			// CompletableFuture.get() wraps its failure: never without a cause
			failed(Objects.requireNonNullElse(ex.getCause(), ex));
			return null;
		}
	}

	/**
	 * The answer of a call to Redis (a decision, a read), or a failure when Redis fails or has not answered by
	 * {@code deadline}. The limiter's own stage is cancelled on timeout, so a client that has not sent it yet can drop
	 * it.
	 */
	private <T> CompletableFuture<T> bounded(Supplier<CompletionStage<T>> call, long deadline) {
		long remaining = deadline - System.nanoTime();
		if (remaining <= 0) {
			return CompletableFuture
				.failedFuture(new DeadlineExceededException("no time left of ratelimit.redis.timeout for this request"));
		}
		long start = System.nanoTime();
		CompletableFuture<T> answer;
		try {
			answer = call.get().toCompletableFuture();
		}
		catch (RuntimeException ex) {
			this.events.redisCall(System.nanoTime() - start, "failure");
			return CompletableFuture.failedFuture(ex);
		}
		if (answer.isDone()) {
			// decided already (the in-memory store decides on the calling thread, and a fast Redis may have answered
			// already): no deadline to watch
			this.events.redisCall(System.nanoTime() - start, answer.isCompletedExceptionally() ? "failure" : "success");
			return answer;
		}
		return firstOf(answer, remaining, start);
	}

	/**
	 * The first of the answer and the timeout settles the call; it is timed before the request goes on, so that the
	 * metrics have counted a call by the time its response leaves.
	 */
	private <T> CompletableFuture<T> firstOf(CompletableFuture<T> answer, long remaining, long start) {
		CompletableFuture<T> bounded = new CompletableFuture<>();
		AtomicBoolean settled = new AtomicBoolean();
		Runnable cancelTimeout = this.timeouts.schedule(() -> {
			if (settled.compareAndSet(false, true)) {
				this.events.redisCall(System.nanoTime() - start, "timeout");
				bounded.completeExceptionally(new TimeoutException());
				answer.cancel(false);
			}
		}, remaining);
		answer.whenComplete((result, failure) -> {
			cancelTimeout.run();
			if (settled.compareAndSet(false, true)) {
				this.events.redisCall(System.nanoTime() - start, (failure != null) ? "failure" : "success");
				if (failure != null) {
					bounded.completeExceptionally(failure);
				}
				else {
					bounded.complete(result);
				}
			}
		});
		return bounded;
	}

	private static RuntimeException unwrap(Throwable failure) {
		Throwable cause = PermitWait.cause(failure);
		if (cause instanceof TimeoutException) {
			return new DeadlineExceededException("Redis did not decide within ratelimit.redis.timeout");
		}
		return (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
	}

	/** The request's time in the limiter ran out. */
	static final class DeadlineExceededException extends RuntimeException {

		DeadlineExceededException(String message) {
			super(message, null, false, false);
		}

	}

}
