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
import org.jspecify.annotations.Nullable;

/**
 * The one timed call to Redis: each call of the enforcer bounded by its request's deadline
 * ({@code ratelimit.redis.timeout} from the request's first decision, {@link RequestDeadline}), timed and counted in
 * the metrics, and moving the fail-local breaker ({@link LocalFallback}) either way. The asynchronous call is the only
 * one; a caller that may block waits for it ({@link #await}). The leases of concurrency limits are renewed and given
 * back through {@link LeaseCalls}, with timeouts of their own.
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

	/** The leases' renewals and releases. */
	private final LeaseCalls leases;

	/**
	 * @param limiter the limiter, Redis or in memory
	 * @param timeout {@code ratelimit.redis.timeout}: one request's time in the limiter, positive
	 * @param timeouts the Redis client's deadlines
	 * @param events metrics and log lines
	 * @param fallback the fail-local breaker and this instance's local state
	 * @param observations of the leases' renewals and releases ({@link RateLimitEnforcer} observes the rest)
	 */
	public RedisCaller(RateLimiter limiter, Duration timeout, Timeouts timeouts, RateLimitEventRecorder events,
			LocalFallback fallback, DecisionObservations observations) {
		this.limiter = limiter;
		this.timeoutNanos = timeout.toNanos();
		this.timeouts = timeouts;
		this.events = events;
		this.fallback = fallback;
		this.leases = new LeaseCalls(this, limiter, this.timeoutNanos, events, fallback, observations);
	}

	/** The leases' side: renewed while their calls run, given back when they end. */
	LeaseCalls leases() {
		return this.leases;
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
	<T> CompletableFuture<T> bounded(Supplier<CompletionStage<T>> call, long deadline) {
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
