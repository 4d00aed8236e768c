package dev.ratelimit.core.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.ratelimit.core.ChannelSubscriber;
import dev.ratelimit.core.LeaseReleases;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A {@link ChannelSubscriber} on Jedis: {@code PSUBSCRIBE} blocks a connection and a thread, so it runs on a daemon
 * thread of its own, with a client of its own (a subscription held on the limiter's pool would take one of its
 * connections for good). A subscription that could not be made, or was lost with its connection, is made again after
 * {@value #FIRST_RETRY_MS} ms, doubled after each attempt that fails up to {@value #LAST_RETRY_MS} ms (a user without
 * the permission), until {@link #close}.
 */
public final class JedisChannelSubscriber implements ChannelSubscriber {

	static final long FIRST_RETRY_MS = 500;

	static final long LAST_RETRY_MS = 30_000;

	private final Supplier<UnifiedJedis> client;

	private final AtomicReference<@Nullable Thread> thread = new AtomicReference<>();

	private final AtomicReference<@Nullable UnifiedJedis> jedis = new AtomicReference<>();

	private final AtomicReference<@Nullable JedisPubSub> current = new AtomicReference<>();

	/** Completes at the next subscription made; failed and replaced by each attempt that fails. Guarded by this. */
	private CompletableFuture<Void> next = new CompletableFuture<>();

	private volatile boolean closed;

	/** Whether the attempt under way subscribed: a lost subscription is made again soon, a refused one later. */
	private final java.util.concurrent.atomic.AtomicBoolean subscribedOnce = new java.util.concurrent.atomic.AtomicBoolean();

	/**
	 * Creates nothing yet: {@link #subscribe} does.
	 * @param client makes the client to subscribe with, once (a {@code JedisCluster} connects as it is made); closed
	 * by {@link #close}
	 */
	public JedisChannelSubscriber(Supplier<UnifiedJedis> client) {
		this.client = client;
	}

	@Override
	public CompletableFuture<Void> subscribe(String pattern, LeaseReleases.Listener listener) {
		CompletableFuture<Void> attempt = next();
		Thread subscribing = new Thread(() -> run(pattern, listener), "ratelimit-lease-releases");
		subscribing.setDaemon(true);
		if (this.thread.compareAndSet(null, subscribing)) {
			subscribing.start();
		}
		return attempt;
	}

	private void run(String pattern, LeaseReleases.Listener listener) {
		long retryMs = FIRST_RETRY_MS;
		while (!this.closed) {
			JedisPubSub pubSub = new JedisPubSub() {

				@Override
				public void onPMessage(String subscribed, String channel, String message) {
					listener.released(channel);
				}

				@Override
				public void onPSubscribe(String subscribed, int count) {
					JedisChannelSubscriber.this.subscribedOnce.set(true);
					listener.subscribed();
					next().complete(null);
				}

			};
			this.current.set(pubSub);
			try {
				// returns when unsubscribed (close), throws when the connection is lost or cannot be made
				jedis().psubscribe(pubSub, pattern);
			}
			catch (RuntimeException ex) {
				failed(ex);
			}
			if (!this.closed) {
				retryMs = this.subscribedOnce.getAndSet(false) ? FIRST_RETRY_MS : Math.min(retryMs * 2, LAST_RETRY_MS);
				try {
					TimeUnit.MILLISECONDS.sleep(retryMs);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}
	}

	private synchronized CompletableFuture<Void> next() {
		return this.next;
	}

	/** The attempt under way failed (or a subscription was lost): the next one gets a stage of its own. */
	private synchronized void failed(RuntimeException ex) {
		this.next.completeExceptionally(ex);
		this.next = new CompletableFuture<>();
	}

	private UnifiedJedis jedis() {
		UnifiedJedis made = this.jedis.get();
		if (made != null) {
			return made;
		}
		UnifiedJedis created = this.client.get();
		this.jedis.set(created);
		return created;
	}

	@Override
	public void close() {
		this.closed = true;
		JedisPubSub pubSub = this.current.get();
		if (pubSub != null && pubSub.isSubscribed()) {
			try {
				pubSub.punsubscribe();
			}
			catch (JedisException ex) {
				// the connection is gone: the thread ends on its own
			}
		}
		Thread subscribing = this.thread.get();
		if (subscribing != null) {
			subscribing.interrupt();
		}
		UnifiedJedis made = this.jedis.getAndSet(null);
		if (made != null) {
			made.close();
		}
	}

}
