package dev.ratelimit.core;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Decides requests of one client against one or several limits, atomically and in one round trip.
 *
 * <p>
 * Every call either admits the request and consumes its cost from every limit, or denies it and consumes
 * nothing. Each limit of a call comes with the call's own cost and mode for it ({@link LimitRequest}), as a call
 * to Bucket4j's {@code Bucket.tryConsume(n)} or Redisson's {@code RRateLimiter.tryAcquire(permits)} carries its
 * permits. A limiter decides at its store's time (for Redis, the server's {@code TIME}) unless it was made with a
 * clock of its own ({@link #withClock}). Implementations are thread-safe.
 */
public interface RateLimiter {

	/**
	 * The tag that stands for a client in the limiter's keys: the base64url of the first 9 bytes of the SHA-256 of
	 * {@code clientId} (12 characters), as Redis' state keys carry it between braces
	 * ({@code rl:{q1y3VdJ8ZtXo}:api:tb:1s}). It names a client where its id (an API key, say) must not be written:
	 * the overrides of one client's limits are kept under it. Whatever the store: the in-memory limiter keys its state
	 * otherwise, but a client's tag is the same.
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @return 12 characters of {@code A-Z a-z 0-9 - _}
	 */
	static String clientTag(String clientId) {
		String tag = RedisKeys.clientTag(clientId);
		return tag.substring(1, tag.length() - 1);
	}


	/**
	 * Decides one request at this limiter's time.
	 * @param clientId who is limited (an IP address, a user name, an API key); any string, stored only as a hash, and
	 * in clear text beside it for a limit that records usage ({@link LimitDefinition#withUsage})
	 * @param limits the limits to apply, each with this request's cost and mode, with pairwise different names; not
	 * empty
	 * @return the decision, one entry per limit in the order given
	 * @throws IllegalArgumentException if {@code limits} is empty or two limits share a name, or if this limiter's
	 * clock reads a time before the epoch or from 2^52 ms on
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	RateLimitDecision tryAcquire(String clientId, List<LimitRequest> limits);

	/**
	 * Decides one request without making the caller wait for the store, so that the caller can bound its wait (a
	 * request's single deadline across several client keys). The default decides on the calling thread.
	 * @return the decision, or a stage completed exceptionally with what {@link #tryAcquire(String, List)} throws
	 */
	default CompletionStage<RateLimitDecision> tryAcquireAsync(String clientId, List<LimitRequest> limits) {
		try {
			return CompletableFuture.completedFuture(tryAcquire(clientId, limits));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Reads one client's state of one limit at this limiter's time, without consuming anything: what the
	 * rate-limit header fields of a request would show, and whether a request of the given cost would be admitted
	 * now. For operators (an Actuator endpoint), not for deciding: a peek followed by a request is not atomic. Writes
	 * nothing: no state is created and no expiry set or extended; entries that no longer count may be dropped, as any
	 * decision drops them (the sliding log's trim, which consumes nothing).
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @param limit the limit, with the cost of the request asked about (its shadow flag changes nothing)
	 * @return {@code allowed} and {@code retryAfterMs} (ms, or empty for never) of a request of
	 * {@code limit.cost()} now; the allowance ({@code remaining} cost-1 requests, {@code resetAfterMs} and
	 * {@code moreAfterMs} in ms) as it stands, as a denied request would report it. A client without state has a
	 * full allowance.
	 * @throws UnsupportedOperationException by default: a limiter that cannot read its state
	 * @throws IllegalArgumentException as {@link #tryAcquire(String, List)} for this limiter's clock
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default LimitDecision peek(String clientId, LimitRequest limit) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot read a client's state");
	}

	/**
	 * {@link #peek(String, LimitRequest)} without making the caller wait for the store, so that the caller can
	 * bound its wait (one deadline for a call's admission and its charge). The default reads on the calling thread.
	 * @return the state, or a stage completed exceptionally with what {@link #peek(String, LimitRequest)} throws
	 */
	default CompletionStage<LimitDecision> peekAsync(String clientId, LimitRequest limit) {
		try {
			return CompletableFuture.completedFuture(peek(clientId, limit));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Settles reservations of one client at this limiter's time, atomically and in one round trip: charges what each
	 * call used beyond the provisional cost it was admitted with, or gives back what it did not use (a shadow
	 * reservation is settled as an enforced one). Never denies: a charge may leave the limit in debt, which later
	 * requests wait out; a refund gives back only units that still count (docs/ALGORITHMS.md, "Settling a
	 * reservation").
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @param settlements one per limit, with pairwise different names; not empty
	 * @return each limit's state after its settlement ({@code allowed}, retry-after 0), in the order given
	 * @throws IllegalArgumentException if {@code settlements} is empty or two share a name
	 * @throws UnsupportedOperationException by default: a limiter that cannot settle
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default RateLimitDecision settle(String clientId, List<Settlement> settlements) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot settle reservations");
	}

	/**
	 * {@link #settle(String, List)} without making the caller wait for the store. The default settles on the calling
	 * thread.
	 * @return the states, or a stage completed exceptionally with what {@link #settle(String, List)} throws
	 */
	default CompletionStage<RateLimitDecision> settleAsync(String clientId, List<Settlement> settlements) {
		try {
			return CompletableFuture.completedFuture(settle(clientId, settlements));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Deletes one client's state of some limits at once (atomically, one round trip), which gives the client the full
	 * allowance of each: to unblock a client. Other clients, and this client's other limits, keep their state.
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @param limits the limits; names may repeat (one limit as several plans shape it); not empty
	 * @return how many states existed and were deleted (limits with one name, algorithm and window share one state)
	 * @throws IllegalArgumentException if {@code limits} is empty
	 * @throws UnsupportedOperationException by default: a limiter that cannot delete its state
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default int reset(String clientId, List<LimitDefinition> limits) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot reset a client's state");
	}

	/**
	 * Deletes the state of every client of every limit that this limiter keeps, which gives every client its full
	 * allowance: for tests that start each case afresh, and operators starting over. Only this limiter's own state:
	 * on Redis the keys of clients' states under its key prefix ({@code <prefix>{<client>}:...}), never another key
	 * (the Spring Boot starter's overrides under the same prefix included); in memory its store. Not atomic: a
	 * request decided meanwhile may find its state deleted before or after it.
	 * @return how many states existed and were deleted (on Redis, how many keys)
	 * @throws UnsupportedOperationException by default: a limiter that cannot delete its state; on a Redis Cluster,
	 * whose keys no single call reaches
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default long resetAll() {
		throw new UnsupportedOperationException(getClass().getName() + " cannot reset every client's state");
	}

	/**
	 * Lists the leases held of one client's concurrency limit ({@link Algorithm#CONCURRENCY}), soonest expiry first,
	 * without writing anything: for operators, who see which calls hold them (a lease id tells its caller) and can give
	 * one back ({@link #settle} of an actual cost 0 with its id). Leases expired at this limiter's time are left out.
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @param limit a concurrency limit
	 * @return the leases held; empty when none
	 * @throws IllegalArgumentException if {@code limit} is not a concurrency limit, or as {@link #tryAcquire(String,
	 * List)} for this limiter's clock
	 * @throws UnsupportedOperationException by default: a limiter that cannot list its leases
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default List<HeldLease> leases(String clientId, LimitDefinition limit) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot list a client's leases");
	}

	/**
	 * Reads one page of a limit's usage: the units each client used in the current or the previous usage period,
	 * units beyond the limit included (settled debt), largest first, for every client recorded, without knowing them
	 * beforehand (docs/ALGORITHMS.md, "Usage"). The period is found by this limiter's clock. For billing and
	 * dashboards: each page is its own read, not a snapshot of all.
	 * @param limit a limit that records usage ({@link LimitDefinition#withUsage}); its name and usage period are read
	 * @param period the period that holds this limiter's time, or the one before it
	 * @param page the page, from 0
	 * @param size clients per page, 1 to {@value Usage#MAX_PAGE_SIZE}
	 * @return the page; empty past the last client
	 * @throws IllegalArgumentException if {@code limit} records no usage, {@code page} is negative or {@code size} out
	 * of range
	 * @throws UnsupportedOperationException by default: a limiter that records no usage
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time
	 */
	default Usage usage(LimitDefinition limit, Usage.Period period, int page, int size) {
		throw new UnsupportedOperationException(getClass().getName() + " records no usage");
	}

	/**
	 * A limiter on the same store and state that decides at {@code clock}'s time (read once per call, in ms) rather
	 * than the store's: for tests, simulations and replays at explicit times. State still expires on the store's own
	 * clock (a Redis key's TTL runs on the server's), counted from each write with the relative TTL computed from the
	 * clock's time. Its decisions are its own: a caller that remembers decisions (the Spring Boot starter's
	 * remembered denials, which rely on the server's time) never sees them.
	 * @param clock the time of every decision and peek; its times must be at least 0 and below 2^52 ms since the
	 * epoch, or the call throws {@link IllegalArgumentException}
	 * @return a new limiter; this one is unchanged
	 * @throws UnsupportedOperationException by default: a limiter that cannot decide at another time
	 */
	default RateLimiter withClock(InstantSource clock) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot decide at another clock's time");
	}

	/**
	 * Decides one request, waiting for a permit when denied: the calling thread sleeps exactly the decision's
	 * retry-after, asks again (other callers may have taken the room meanwhile), and gives up once the next wait would
	 * take the total past {@code maxWait}. It never polls: when nothing else competes, a permit granted after one wait
	 * costs two decisions. Threads of this JVM denied and waiting on one limiter object for the same client, limits and
	 * costs wait in line: one asks at a time, and an admitted one lets the next ask at once when the decision left
	 * room, else when one more unit fits, so that they do not all wake at the same retry-after and ask together
	 * (docs/ALGORITHMS.md, "Waiting for a permit of rate limits"). A call that comes while others wait joins them
	 * without asking; one that would wait past its max wait for the line's next ask returns the line's last denial,
	 * its waits reduced by the time since ({@link RateLimitDecision#aged}), without asking. A call for which no
	 * thread waits asks at once, as {@link #tryAcquire} does. A request that can never be admitted
	 * ({@link RateLimitDecision#never()}) is answered at once. Blocks a platform thread; a virtual thread unmounts
	 * while it sleeps. The waits are measured on {@link System#nanoTime()}, whatever this limiter's clock.
	 * @param clientId as in {@link #tryAcquire(String, List)}
	 * @param limits as in {@link #tryAcquire(String, List)}
	 * @param maxWait the longest the call may wait in all, at least zero ({@link Duration#ZERO}: decide once)
	 * @return the admitting decision, or the last denial when waiting for a permit would exceed {@code maxWait}
	 * @throws IllegalArgumentException if {@code maxWait} is negative, or as {@link #tryAcquire(String, List)}
	 * @throws InterruptedException if the thread is interrupted before or while it waits (nothing was consumed)
	 * @throws RuntimeException from the underlying client when the store cannot be reached in time, or when the thread
	 * is interrupted during a decision's round trip (Lettuce's executor: {@link IllegalStateException}; the decision
	 * may have been taken)
	 */
	default RateLimitDecision acquire(String clientId, List<LimitRequest> limits, Duration maxWait)
			throws InterruptedException {
		return AcquireLines.acquire(this, clientId, limits, maxWait);
	}

	/** Decides one request against one limit. See {@link #tryAcquire(String, List)}. */
	default RateLimitDecision tryAcquire(String clientId, LimitRequest limit) {
		return tryAcquire(clientId, List.of(limit));
	}

	/** Decides one request of cost 1 against one enforced limit. See {@link #tryAcquire(String, List)}. */
	default RateLimitDecision tryAcquire(String clientId, LimitDefinition limit) {
		return tryAcquire(clientId, List.of(limit.request()));
	}

}
