package dev.ratelimit.core.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.core.ChannelSubscriber;
import dev.ratelimit.core.LeaseReleases;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A {@link ChannelSubscriber} on Jedis: {@code PSUBSCRIBE} blocks a connection and a thread, so it runs on a daemon
 * thread of its own, with a client of its own (a subscription held on the limiter's pool would take one of its
 * connections for good). A subscription lost with its connection is made again after {@value #RETRY_MS} ms.
 */
public final class JedisChannelSubscriber implements ChannelSubscriber {

	static final long RETRY_MS = 500;

	private final UnifiedJedis jedis;

	private final AtomicReference<@Nullable Thread> thread = new AtomicReference<>();

	private final AtomicReference<@Nullable JedisPubSub> current = new AtomicReference<>();

	private volatile boolean closed;

	/** A subscriber on {@code jedis}, which it closes with itself; for subscriptions alone. */
	public JedisChannelSubscriber(UnifiedJedis jedis) {
		this.jedis = jedis;
	}

	@Override
	public CompletableFuture<Void> subscribe(String pattern, LeaseReleases.Listener listener) {
		CompletableFuture<Void> first = new CompletableFuture<>();
		Thread subscribing = new Thread(() -> run(pattern, listener, first), "ratelimit-lease-releases");
		subscribing.setDaemon(true);
		if (!this.thread.compareAndSet(null, subscribing)) {
			return CompletableFuture.failedFuture(new IllegalStateException("subscribed already"));
		}
		subscribing.start();
		return first;
	}

	private void run(String pattern, LeaseReleases.Listener listener, CompletableFuture<Void> first) {
		while (!this.closed) {
			JedisPubSub pubSub = new JedisPubSub() {

				@Override
				public void onPMessage(String subscribed, String channel, String message) {
					listener.released(channel);
				}

				@Override
				public void onPSubscribe(String subscribed, int count) {
					listener.subscribed();
					first.complete(null);
				}

			};
			this.current.set(pubSub);
			try {
				// returns when unsubscribed (close), throws when the connection is lost
				this.jedis.psubscribe(pubSub, pattern);
			}
			catch (JedisException ex) {
				first.completeExceptionally(ex);
			}
			if (!this.closed) {
				try {
					TimeUnit.MILLISECONDS.sleep(RETRY_MS);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}
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
		this.jedis.close();
	}

}
