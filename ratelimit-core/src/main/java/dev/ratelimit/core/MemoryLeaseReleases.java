package dev.ratelimit.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * {@link LeaseReleases} of {@link InMemoryRateLimiter}: concurrency.lua's PUBLISH is a call of the listener, made by
 * the release itself. Nothing to connect: listening starts at once.
 */
final class MemoryLeaseReleases implements LeaseReleases {

	private final AtomicReference<@Nullable Listener> listener = new AtomicReference<>();

	@Override
	public String channel(String clientId, LimitDefinition limit) {
		if (limit.algorithm().rate()) {
			throw new IllegalArgumentException("limit '" + limit.name() + "' is a rate limit: it holds no leases");
		}
		// a name cannot hold a NUL (LimitDefinition): no two clients and limits share a channel
		return limit.name() + '\0' + clientId;
	}

	@Override
	public CompletableFuture<Void> listen(Listener listener) {
		if (this.listener.compareAndSet(null, listener)) {
			listener.subscribed();
		}
		return CompletableFuture.completedFuture(null);
	}

	/** A release by a full limit: told to the listener, if any. */
	void announce(String clientId, LimitDefinition limit) {
		Listener current = this.listener.get();
		if (current != null) {
			current.released(channel(clientId, limit));
		}
	}

	@Override
	public void close() {
		this.listener.set(null);
	}

}
