package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Decides requests of one client against one or several limits, atomically and in one round trip.
 *
 * <p>
 * Every call either admits the request and consumes its cost from every limit, or denies it and consumes
 * nothing. Implementations are thread-safe.
 */
public interface RateLimiter {

	/**
	 * Decides one request at the store's current time (for Redis, the server's {@code TIME}).
	 * @param clientId who is limited (an IP address, a user name, an API key); any string, stored only as a hash
	 * @param limits the limits to apply, with pairwise different names; not empty
	 * @return the decision, one entry per limit in the order given
	 * @throws IllegalArgumentException if {@code limits} is empty or two limits share a name
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	RateLimitDecision tryAcquire(String clientId, List<LimitDefinition> limits);

	/**
	 * Decides one request at an explicit time, for tests and simulations.
	 * @param nowMs the time in ms since the epoch, at least 0 and below 2^52
	 * @throws IllegalArgumentException also when {@code nowMs} is out of that range
	 * @see #tryAcquire(String, List)
	 */
	RateLimitDecision tryAcquire(String clientId, List<LimitDefinition> limits, long nowMs);

	/**
	 * Decides one request at the store's current time without making the caller wait for the store, so that the
	 * caller can bound its wait (a request's single deadline across several client keys). The default decides on
	 * the calling thread.
	 * @return the decision, or a stage completed exceptionally with what {@link #tryAcquire(String, List)} throws
	 */
	default CompletionStage<RateLimitDecision> tryAcquireAsync(String clientId, List<LimitDefinition> limits) {
		try {
			return CompletableFuture.completedFuture(tryAcquire(clientId, limits));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Reads one client's state of one limit at the store's current time, without consuming anything: what the
	 * rate-limit header fields of a request would show, and whether a request of the limit's cost would be admitted
	 * now. For operators (an Actuator endpoint), not for deciding: a peek followed by a request is not atomic. Writes
	 * nothing: no state is created and no expiry set or extended; entries that no longer count may be dropped, as any
	 * decision drops them (the sliding log's trim, which consumes nothing).
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @param limit the limit, with the cost of the request asked about
	 * @return {@code allowed} and {@code retryAfterMs} (ms, or {@link LimitDecision#NEVER}) of a request of
	 * {@code limit.cost()} now; {@code remaining} (cost-1 requests), {@code resetAfterMs} and {@code moreAfterMs} (ms)
	 * of the state as it stands, as a denied request would report them. A client without state has a full allowance.
	 * @throws UnsupportedOperationException by default: a limiter that cannot read its state
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default LimitDecision peek(String clientId, LimitDefinition limit) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot read a client's state");
	}

	/**
	 * {@link #peek(String, LimitDefinition)} without making the caller wait for the store, so that the caller can
	 * bound its wait (one deadline for a call's admission and its charge). The default reads on the calling thread.
	 * @return the state, or a stage completed exceptionally with what {@link #peek(String, LimitDefinition)} throws
	 */
	default CompletionStage<LimitDecision> peekAsync(String clientId, LimitDefinition limit) {
		try {
			return CompletableFuture.completedFuture(peek(clientId, limit));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Reads one client's state of one limit at an explicit time, for tests and simulations.
	 * @param nowMs the time in ms since the epoch, at least 0 and below 2^52
	 * @throws IllegalArgumentException when {@code nowMs} is out of that range
	 * @see #peek(String, LimitDefinition)
	 */
	default LimitDecision peek(String clientId, LimitDefinition limit, long nowMs) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot read a client's state");
	}

	/**
	 * Deletes one client's state of some limits at once (atomically, one round trip), which gives the client the full
	 * allowance of each: to unblock a client. Other clients, and this client's other limits, keep their state.
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @param limits the limits; names may repeat (one limit as several plans shape it), costs do not matter; not
	 * empty
	 * @return how many states existed and were deleted (limits with one name, algorithm and window share one state)
	 * @throws IllegalArgumentException if {@code limits} is empty
	 * @throws UnsupportedOperationException by default: a limiter that cannot delete its state
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default int reset(String clientId, List<LimitDefinition> limits) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot reset a client's state");
	}

	/**
	 * Decides one request at the store's current time, waiting for a permit when denied: the calling thread sleeps
	 * exactly the decision's retry-after, asks again (other callers may have taken the room meanwhile), and gives up
	 * once the next wait would take the total past {@code maxWait}. It never polls: when nothing else competes, a
	 * permit granted after one wait costs two decisions. A request that can never be admitted
	 * ({@link RateLimitDecision#never()}) is answered at once. Blocks a platform thread; a virtual thread unmounts
	 * while it sleeps.
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @param limits as in {@link #tryAcquire(String, List)}
	 * @param maxWait the longest the call may wait in all, at least zero ({@link Duration#ZERO}: decide once)
	 * @return the admitting decision, or the last denial when waiting for a permit would exceed {@code maxWait}
	 * @throws IllegalArgumentException if {@code maxWait} is negative, or as {@link #tryAcquire(String, List)}
	 * @throws InterruptedException if the thread is interrupted while it waits (nothing was consumed)
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default RateLimitDecision acquire(String clientId, List<LimitDefinition> limits, Duration maxWait)
			throws InterruptedException {
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must not be negative: " + maxWait);
		}
		long deadline = System.nanoTime() + maxWait.toNanos();
		while (true) {
			RateLimitDecision decision = tryAcquire(clientId, limits);
			if (decision.allowed() || decision.never()) {
				return decision;
			}
			long waitNanos = TimeUnit.MILLISECONDS.toNanos(decision.retryAfterMs());
			if (System.nanoTime() + waitNanos - deadline > 0) {
				return decision;
			}
			TimeUnit.NANOSECONDS.sleep(waitNanos);
		}
	}

	/** Decides one request against one limit at the store's time. See {@link #tryAcquire(String, List)}. */
	default RateLimitDecision tryAcquire(String clientId, LimitDefinition limit) {
		return tryAcquire(clientId, List.of(limit));
	}

	/** Decides one request against one limit at an explicit time. See {@link #tryAcquire(String, List, long)}. */
	default RateLimitDecision tryAcquire(String clientId, LimitDefinition limit, long nowMs) {
		return tryAcquire(clientId, List.of(limit), nowMs);
	}

}
