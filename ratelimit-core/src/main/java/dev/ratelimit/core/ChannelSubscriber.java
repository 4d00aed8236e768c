package dev.ratelimit.core;

import java.util.concurrent.CompletableFuture;

/**
 * Subscribes to Redis channels by pattern ({@code PSUBSCRIBE}) on a connection of its own, for
 * {@link RedisRateLimiter#releases}: the core ships one on Lettuce and one on Jedis ({@code dev.ratelimit.core.redis}).
 * A subscription lost with its connection is made again, and each one made is reported.
 */
public interface ChannelSubscriber extends AutoCloseable {

	/**
	 * Subscribes to {@code pattern}, once; called again after its stage failed, it tries again (or, where it keeps
	 * trying by itself, returns the stage of its next attempt).
	 * @param pattern a glob-style pattern, as {@code PSUBSCRIBE} takes it
	 * @param listener told the channel of every message ({@link LeaseReleases.Listener#released}) and every
	 * subscription made ({@link LeaseReleases.Listener#subscribed}), on the client's thread
	 * @return completes when the first subscription is in place, or exceptionally when it could not be made
	 */
	CompletableFuture<Void> subscribe(String pattern, LeaseReleases.Listener listener);

	/** Unsubscribes and closes the connection. */
	@Override
	void close();

}
