package dev.ratelimit.core.redis;

import java.util.concurrent.CompletableFuture;
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
 * made is reported to the listener ({@code psubscribed}). A subscription that could not be made closes its
 * connection; the next {@link #subscribe} opens another.
 */
public final class LettuceChannelSubscriber implements ChannelSubscriber {

	private final Supplier<CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>>> connector;

	private final Runnable onClose;

	/** The connection of the subscription under way or made; guarded by this. */
	private @Nullable CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connection;

	/** The subscription under way or made; guarded by this. */
	private @Nullable CompletableFuture<Void> subscription;

	/**
	 * Opens nothing yet: {@link #subscribe} does.
	 * @param connector opens the pub/sub connection (with the {@code UTF-8} string codec) of a client that
	 * reconnects by itself; asked again by a {@link #subscribe} after a subscription that could not be made
	 * @param onClose releases the client after {@link #close} has closed the connection
	 */
	public LettuceChannelSubscriber(
			Supplier<CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>>> connector,
			Runnable onClose) {
		this.connector = connector;
		this.onClose = onClose;
	}

	@Override
	public synchronized CompletableFuture<Void> subscribe(String pattern, LeaseReleases.Listener listener) {
		if (this.subscription != null && !this.subscription.isCompletedExceptionally()) {
			return this.subscription;
		}
		closeConnection();
		CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> opened = this.connector.get();
		CompletableFuture<Void> subscribed = opened.thenCompose((connection) -> {
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
		this.connection = opened;
		this.subscription = subscribed;
		return subscribed;
	}

	private void closeConnection() {
		CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> opened = this.connection;
		this.connection = null;
		if (opened != null) {
			opened.thenAccept(StatefulRedisPubSubConnection::closeAsync);
		}
	}

	@Override
	public synchronized void close() {
		closeConnection();
		this.subscription = null;
		this.onClose.run();
	}

}
