package dev.ratelimit.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * {@link LeaseReleases} on Redis pub/sub: concurrency.lua publishes a release of a full limit on the limit's key
 * name, and one pattern subscription per listener ({@code PSUBSCRIBE <prefix>*}) receives them all. One
 * subscription rather than one per waited-for key: nothing to subscribe or unsubscribe as callers come and go, and no
 * gap between a denial and a subscription made after it; the price is that every listening instance receives every
 * announced release of the fleet (docs/ALGORITHMS.md, "Waiting for a lease").
 */
final class RedisLeaseReleases implements LeaseReleases {

	private final RedisKeys keys;

	private final String pattern;

	private final ChannelSubscriber subscriber;

	static final long RETRY_AFTER_FAILURE_MS = 5000;

	/** The stage of the last subscription asked for; guarded by this. */
	private @Nullable CompletableFuture<Void> listening;

	/** When it was asked for ({@link System#nanoTime()}); guarded by this. */
	private long askedAt;

	RedisLeaseReleases(RedisKeys keys, ChannelSubscriber subscriber) {
		this.keys = keys;
		this.pattern = keys.leasePattern();
		this.subscriber = subscriber;
	}

	@Override
	public String channel(String clientId, LimitDefinition limit) {
		if (limit.algorithm().rate()) {
			throw new IllegalArgumentException("limit '" + limit.name() + "' is a rate limit: it holds no leases");
		}
		return this.keys.key(clientId, limit);
	}

	/**
	 * Subscribes once; again only after a subscription that could not be made, and no sooner than
	 * {@value #RETRY_AFTER_FAILURE_MS} ms after it was asked for (a user without the permission would open a
	 * connection at every wait).
	 */
	@Override
	public synchronized CompletableFuture<Void> listen(Listener listener) {
		CompletableFuture<Void> previous = this.listening;
		if (previous != null && (!previous.isCompletedExceptionally()
				|| System.nanoTime() - this.askedAt < TimeUnit.MILLISECONDS.toNanos(RETRY_AFTER_FAILURE_MS))) {
			return previous;
		}
		this.askedAt = System.nanoTime();
		CompletableFuture<Void> started = this.subscriber.subscribe(this.pattern, listener);
		this.listening = started;
		return started;
	}

	@Override
	public void close() {
		this.subscriber.close();
	}

}
