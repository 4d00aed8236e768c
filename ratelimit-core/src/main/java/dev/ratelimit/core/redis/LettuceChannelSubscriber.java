package dev.ratelimit.core.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.ratelimit.core.ChannelSubscriber;
import dev.ratelimit.core.LeaseReleases;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ChannelSubscriber} on a Lettuce pub/sub connection of its own (for a Cluster,
 * {@code RedisClusterClient.connectPubSubAsync}, which subscribes on one node: a {@code PUBLISH} reaches every node).
 * Lettuce reconnects the connection and subscribes again by itself when the client auto-reconnects; each subscription
 * made is reported to the listener ({@code psubscribed}).
 */
public final class LettuceChannelSubscriber implements ChannelSubscriber {

	private final Supplier<CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>>> connector;

	private final Runnable onClose;

	private final AtomicReference<@Nullable CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>>> connection = new AtomicReference<>();

	/**
	 * Opens nothing yet: {@link #subscribe} does.
	 * @param connector opens the pub/sub connection (with the {@code UTF-8} string codec) of a client that
	 * reconnects by itself; asked again by a {@link #subscribe} after one it could not open
	 * @param onClose releases the client after {@link #close} has closed the connection
	 */
	public LettuceChannelSubscriber(
			Supplier<CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>>> connector,
			Runnable onClose) {
		this.connector = connector;
		this.onClose = onClose;
	}

	@Override
	public CompletableFuture<Void> subscribe(String pattern, LeaseReleases.Listener listener) {
		CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> previous = this.connection.get();
		if (previous != null && !previous.isCompletedExceptionally()) {
			return CompletableFuture.failedFuture(new IllegalStateException("subscribed already"));
		}
		CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> opened = this.connector.get();
		if (!this.connection.compareAndSet(previous, opened)) {
			opened.thenAccept(StatefulRedisPubSubConnection::closeAsync);
			return CompletableFuture.failedFuture(new IllegalStateException("subscribed already"));
		}
		return opened.thenCompose((connection) -> {
			connection.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String subscribed, String channel, String message) {
					listener.released(channel);
				}

				@Override
				public void psubscribed(String subscribed, long count) {
					listener.subscribed();
				}

			});
			return connection.async().psubscribe(pattern).toCompletableFuture();
		});
	}

	@Override
	public void close() {
		CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> opened = this.connection
			.getAndSet(null);
		if (opened != null && opened.isDone() && !opened.isCompletedExceptionally()) {
			opened.join().close();
		}
		this.onClose.run();
	}

}
