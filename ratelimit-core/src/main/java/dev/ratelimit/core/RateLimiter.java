package dev.ratelimit.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

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

	/** Decides one request against one limit at the store's time. See {@link #tryAcquire(String, List)}. */
	default RateLimitDecision tryAcquire(String clientId, LimitDefinition limit) {
		return tryAcquire(clientId, List.of(limit));
	}

	/** Decides one request against one limit at an explicit time. See {@link #tryAcquire(String, List, long)}. */
	default RateLimitDecision tryAcquire(String clientId, LimitDefinition limit, long nowMs) {
		return tryAcquire(clientId, List.of(limit), nowMs);
	}

}
