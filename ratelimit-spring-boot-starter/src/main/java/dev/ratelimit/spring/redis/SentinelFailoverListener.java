package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.core.redis.LettuceScriptExecutor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Listens to every Sentinel for {@code +switch-master} of the limiter's master: a failover whose old master still
 * runs keeps accepting the limiter's writes (lost to the new master) until the Sentinel reconfigures it, so the
 * limiter reconnects, to the new master, as soon as a Sentinel announces it.
 *
 * <p>
 * A Sentinel that cannot be reached at startup is asked again every {@link #RETRY} (1 s) until it answers: Lettuce
 * reconnects a subscription once it has been made, not one that never was, and that Sentinel may be the only one to
 * announce the next failover. The cost is one connection attempt per second to a Sentinel that is down.
 */
public final class SentinelFailoverListener {

	/** The time between two attempts to subscribe to a Sentinel that could not be reached. */
	static final Duration RETRY = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(SentinelFailoverListener.class);

	private final RedisClient events;

	private final String master;

	private final LettuceScriptExecutor executor;

	private SentinelFailoverListener(RedisClient events, String master, LettuceScriptExecutor executor) {
		this.events = events;
		this.master = master;
		this.executor = executor;
	}

	/**
	 * Subscribes to {@code +switch-master} on each Sentinel of {@code uri}, with the client {@code events}, which
	 * the caller shuts down when the limiter closes.
	 */
	public static void follow(RedisClient events, RedisURI uri, String master, LettuceScriptExecutor executor) {
		SentinelFailoverListener failovers = new SentinelFailoverListener(events, master, executor);
		for (RedisURI sentinel : uri.getSentinels()) {
			failovers.subscribe(sentinel, true);
		}
	}

	private void subscribe(RedisURI sentinel, boolean first) {
		try {
			this.events.connectPubSubAsync(StringCodec.UTF8, sentinel)
				.whenComplete((connection, ex) -> subscribed(sentinel, connection, ex, first));
		}
		catch (RuntimeException ex) {
			// the client is shut down: the limiter is closed
		}
	}

	private void subscribed(RedisURI sentinel, StatefulRedisPubSubConnection<String, String> connection,
			Throwable failure, boolean first) {
		if (failure != null) {
			if (first) {
				logger.warn("The rate limiter could not subscribe to failovers on the Sentinel at " + sentinel.getHost()
						+ ":" + sentinel.getPort() + "; trying again every " + RETRY.toMillis() + " ms: " + failure);
			}
			try {
				this.events.getResources()
					.eventExecutorGroup()
					.schedule(() -> subscribe(sentinel, false), RETRY.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (RuntimeException ex) {
				// the client is shut down: the limiter is closed
			}
			return;
		}
		if (!first) {
			logger.info("The rate limiter subscribed to failovers on the Sentinel at " + sentinel.getHost() + ":"
					+ sentinel.getPort());
		}
		connection.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String channel, String message) {
				if (message.startsWith(SentinelFailoverListener.this.master + " ")) {
					SentinelFailoverListener.this.executor.reconnect();
				}
			}

		});
		connection.async().subscribe("+switch-master");
	}

}
