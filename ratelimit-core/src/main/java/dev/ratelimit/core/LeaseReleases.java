package dev.ratelimit.core;

import java.util.concurrent.CompletableFuture;

/**
 * Where a limiter announces that a lease of a full concurrency limit ({@link Algorithm#CONCURRENCY}) was given back,
 * so that callers waiting for a lease decide again at once instead of polling (docs/ALGORITHMS.md, "Concurrency",
 * "Waiting for a lease"). Only a release by a limit that held {@code limit} leases is announced: none other can
 * have denied anyone. A lease that expires is not announced; a waiter also decides again at the earliest expiry its
 * denial reported.
 *
 * <p>
 * Announcements are hints, not a queue: one may be lost (a subscription reconnecting), so a waiter keeps its timer,
 * and each one may reach every listener in the fleet, of which the first to decide takes the lease. Obtained from
 * {@link RedisRateLimiter#releases} (Redis pub/sub) or {@link InMemoryRateLimiter#releases()}. Thread-safe.
 */
public interface LeaseReleases extends AutoCloseable {

	/**
	 * The name under which releases of {@code clientId}'s leases of {@code limit} are announced.
	 * @param clientId as in {@link RateLimiter#tryAcquire(String, java.util.List)}
	 * @param limit a concurrency limit
	 */
	String channel(String clientId, LimitDefinition limit);

	/**
	 * Starts delivering announcements to {@code listener}, on a connection of its own (never the one that decides);
	 * once: later calls return the first call's stage and ignore their listener, unless that stage failed, when
	 * they may try again.
	 * @return completes when the first subscription is in place (every release from then on reaches the listener),
	 * or exceptionally when it cannot be made; the listener is then told of each new subscription as it comes
	 */
	CompletableFuture<Void> listen(Listener listener);

	/** Stops listening and closes the connection, if any. */
	@Override
	void close();

	/** What a listener is told. Called on the subscription's own thread: must not block. */
	interface Listener {

		/** A lease of the limit that {@code channel} names ({@link #channel}) was given back while it was full. */
		void released(String channel);

		/**
		 * A subscription is in place, the first or a new one after the connection was lost: any release meanwhile
		 * may have gone unannounced.
		 */
		void subscribed();

	}

}
