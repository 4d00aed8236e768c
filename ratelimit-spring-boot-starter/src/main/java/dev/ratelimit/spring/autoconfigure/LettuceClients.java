package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.redis.EventLoopTimeouts;
import dev.ratelimit.core.redis.FairDeadlines;
import dev.ratelimit.core.redis.LettuceChannelSubscriber;
import dev.ratelimit.core.redis.LettuceScriptExecutor;
import dev.ratelimit.spring.redis.LettuceClusterTopology;
import dev.ratelimit.spring.redis.SentinelFailoverListener;
import dev.ratelimit.spring.redis.SentinelFailoverListener;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.util.Assert;

/**
 * Builds the limiter's Lettuce client for a {@link RedisTarget}: standalone, Sentinel or Cluster, with the target's
 * credentials and TLS, and the limiter's own threads and timeouts (nothing is shared with an application's Lettuce
 * client, so neither sees the other's commands, metrics or settings).
 */
final class LettuceClients {

	private LettuceClients() {
	}

	static LettuceScriptExecutor create(RedisTarget target, Duration timeout, Duration connectTimeout,
			List<LuaScript> preloaded) {
		AtomicReference<@Nullable ClientResources> built = new AtomicReference<>();
		// set below, before the client that schedules deadlines exists
		EventLoopTimeouts deadlines = new EventLoopTimeouts(() -> Objects.requireNonNull(built.get()).eventExecutorGroup());
		ClientResources resources = DefaultClientResources.builder()
			// One I/O thread, on which the deadlines run (EventLoopTimeouts): it reads every reply of the limiter.
			.ioThreadPoolSize(1)
			.computationThreadPoolSize(2)
			.nettyCustomizer(deadlines)
			// Only the cluster client reconnects by itself (its node connections); keep its back-off short.
			.reconnectDelay(Delay.exponential(Duration.ofMillis(1), Duration.ofMillis(200), 2, TimeUnit.MILLISECONDS))
			.build();
		built.set(resources);
		Client client = new Client(target, timeout, connectTimeout, resources, deadlines);
		DataRedisConnectionDetails.Cluster cluster = target.details().getCluster();
		return (cluster != null) ? cluster(client, cluster, preloaded) : standaloneOrSentinel(client, preloaded);
	}

	/**
	 * The subscriber to the releases of leases ({@code PSUBSCRIBE}) for a {@link RedisTarget}: a client of its own,
	 * made at the first subscription, with one I/O thread, the target's credentials and TLS, and Lettuce's own
	 * reconnection, which subscribes again after a lost connection (a Cluster's subscription is on one node: every
	 * node delivers a {@code PUBLISH}).
	 */
	static LettuceChannelSubscriber subscriber(RedisTarget target, Duration connectTimeout) {
		// the client of the last subscription asked for, shut down when another is asked for (the last one could
		// not be made) or at close
		AtomicReference<@Nullable AbstractRedisClient> current = new AtomicReference<>();
		return new LettuceChannelSubscriber(() -> {
			ClientResources resources = DefaultClientResources.builder()
				.ioThreadPoolSize(1)
				.computationThreadPoolSize(1)
				.build();
			SocketOptions socket = SocketOptions.builder().connectTimeout(connectTimeout).build();
			DataRedisConnectionDetails details = target.details();
			DataRedisConnectionDetails.Cluster cluster = details.getCluster();
			if (cluster != null) {
				RedisClusterClient client = RedisClusterClient.create(resources,
						cluster.getNodes().stream().map((node) -> node(node, target, connectTimeout)).toList());
				ClusterClientOptions.Builder options = ClusterClientOptions.builder().socketOptions(socket);
				if (target.ssl() != null) {
					options.sslOptions(sslOptions(target.ssl()));
				}
				client.setOptions(options.build());
				shutDown(current.getAndSet(client), false);
				return client.refreshPartitionsAsync()
					.toCompletableFuture()
					.thenCompose((loaded) -> client.connectPubSubAsync(StringCodec.UTF8));
			}
			DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
			RedisURI uri = (sentinel != null) ? sentinel(details, sentinel, target, connectTimeout)
					: standalone(details, target, connectTimeout);
			RedisClient client = RedisClient.create(resources);
			ClientOptions.Builder options = ClientOptions.builder().socketOptions(socket);
			if (target.ssl() != null) {
				options.sslOptions(sslOptions(target.ssl()));
			}
			client.setOptions(options.build());
			shutDown(current.getAndSet(client), false);
			return client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
		}, () -> shutDown(current.getAndSet(null), true));
	}

	/** Shuts a subscriber's client down with its own resources: waiting at close, else in the background. */
	private static void shutDown(@Nullable AbstractRedisClient client, boolean wait) {
		if (client == null) {
			return;
		}
		ClientResources resources = client.getResources();
		CompletableFuture<Void> down = client.shutdownAsync(0, 2, TimeUnit.SECONDS)
			.whenComplete((done, failure) -> resources.shutdown(0, 2, TimeUnit.SECONDS));
		if (wait) {
			down.join();
		}
	}

	private static LettuceScriptExecutor cluster(Client settings, DataRedisConnectionDetails.Cluster cluster,
			List<LuaScript> preloaded) {
		RedisTarget target = settings.target();
		List<RedisURI> nodes = cluster.getNodes()
			.stream()
			.map((node) -> node(node, target, settings.connectTimeout()))
			.toList();
		RedisClusterClient client = RedisClusterClient.create(settings.resources(), nodes);
		ClusterClientOptions.Builder options = ClusterClientOptions.builder()
			.socketOptions(settings.socketOptions())
			.timeoutOptions(settings.timeoutOptions())
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.topologyRefreshOptions(LettuceClusterTopology.refreshOptions());
		if (target.ssl() != null) {
			options.sslOptions(sslOptions(target.ssl()));
		}
		client.setOptions(options.build());
		settings.deadlines().whenSilent(LettuceClusterTopology.refreshOnFailures(client)::deadlinePassed);
		// connectAsync needs the topology loaded (connect() loads it, blocking); each new connection reloads it.
		return new LettuceScriptExecutor(() -> client.refreshPartitionsAsync()
			.toCompletableFuture()
			.thenCompose((loaded) -> client.connectAsync(StringCodec.UTF8)), preloaded, settings.timeout(),
				settings.deadlines(), () -> {
					client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
					settings.shutdown();
				});
	}

	private static LettuceScriptExecutor standaloneOrSentinel(Client settings, List<LuaScript> preloaded) {
		RedisTarget target = settings.target();
		DataRedisConnectionDetails details = target.details();
		DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
		RedisURI uri = (sentinel != null) ? sentinel(details, sentinel, target, settings.connectTimeout())
				: standalone(details, target, settings.connectTimeout());
		RedisClient client = RedisClient.create(settings.resources());
		ClientOptions.Builder options = ClientOptions.builder()
			.socketOptions(settings.socketOptions())
			.timeoutOptions(settings.timeoutOptions())
			// LettuceScriptExecutor opens a new connection when it finds one closed: no back-off, no command buffer.
			.autoReconnect(false);
		if (target.ssl() != null) {
			options.sslOptions(sslOptions(target.ssl()));
		}
		client.setOptions(options.build());
		RedisClient sentinelEvents = (sentinel != null) ? RedisClient.create(settings.resources()) : null;
		// Subscribing to the Sentinels' failovers connects too: it starts with the first connection (in the
		// application's lifecycle, RedisConnectionLifecycle), not as the client is built.
		AtomicReference<Runnable> followFailovers = new AtomicReference<>(Client.NOTHING);
		LettuceScriptExecutor executor = new LettuceScriptExecutor(() -> {
			followFailovers.getAndSet(Client.NOTHING).run();
			return client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
		}, preloaded, settings.timeout(), settings.deadlines(), () -> {
			if (sentinelEvents != null) {
				sentinelEvents.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			settings.shutdown();
		});
		if (sentinel != null && sentinelEvents != null) {
			String master = sentinel.getMaster();
			followFailovers.set(() -> SentinelFailoverListener.follow(sentinelEvents, uri, master, executor));
		}
		return executor;
	}

	private static RedisURI standalone(DataRedisConnectionDetails details, RedisTarget target, Duration timeout) {
		DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
		Assert.state(standalone != null, "The Redis connection details name no standalone, sentinel or cluster Redis");
		return uri(target, timeout, details.getUsername(), details.getPassword())
			.withHost(standalone.getHost())
			.withPort(standalone.getPort())
			.withDatabase(standalone.getDatabase())
			.build();
	}

	private static RedisURI sentinel(DataRedisConnectionDetails details, DataRedisConnectionDetails.Sentinel sentinel,
			RedisTarget target, Duration timeout) {
		RedisURI.Builder uri = uri(target, timeout, details.getUsername(), details.getPassword())
			.withSentinelMasterId(sentinel.getMaster())
			.withDatabase(sentinel.getDatabase());
		for (Node node : sentinel.getNodes()) {
			uri.withSentinel(uri(target, timeout, sentinel.getUsername(), sentinel.getPassword()).withHost(node.host())
				.withPort(node.port())
				.build());
		}
		return uri.build();
	}

	private static RedisURI node(Node node, RedisTarget target, Duration timeout) {
		return uri(target, timeout, target.details().getUsername(), target.details().getPassword())
			.withHost(node.host())
			.withPort(node.port())
			.build();
	}

	/**
	 * What every URI of the limiter has: TLS, its name in CLIENT LIST, credentials, and {@code timeout} for what
	 * Lettuce bounds by the URI's timeout: the handshake of a new connection (AUTH, HELLO, SELECT) and Sentinel
	 * lookups. It is the connect timeout: a handshake that outlives a request's deadline still opens the connection
	 * for the next request, instead of failing again and again on a loaded machine. Commands have their own timeout
	 * ({@link TimeoutOptions}).
	 */
	private static RedisURI.Builder uri(RedisTarget target, Duration timeout, @Nullable String username,
			@Nullable String password) {
		RedisURI.Builder uri = RedisURI.builder()
			.withSsl(target.ssl() != null)
			.withTimeout(timeout)
			.withClientName(RedisTarget.CLIENT_NAME);
		authenticate(uri, username, password);
		return uri;
	}

	private static void authenticate(RedisURI.Builder uri, @Nullable String username, @Nullable String password) {
		if (password == null) {
			return;
		}
		if (username != null) {
			uri.withAuthentication(username, password);
		}
		else {
			uri.withPassword(password.toCharArray());
		}
	}

	private static SslOptions sslOptions(SslBundle bundle) {
		SslOptions.Builder ssl = SslOptions.builder()
			.keyManager(bundle.getManagers().getKeyManagerFactory())
			.trustManager(bundle.getManagers().getTrustManagerFactory());
		if (bundle.getOptions().getCiphers() != null) {
			ssl.cipherSuites(bundle.getOptions().getCiphers());
		}
		if (bundle.getOptions().getEnabledProtocols() != null) {
			ssl.protocols(bundle.getOptions().getEnabledProtocols());
		}
		return ssl.build();
	}

	/** What every client of the limiter is built with: its target, timeouts, threads and deadlines. */
	private record Client(RedisTarget target, Duration timeout, Duration connectTimeout, ClientResources resources,
			EventLoopTimeouts deadlines) {

		static final Runnable NOTHING = () -> {
		};

		SocketOptions socketOptions() {
			return SocketOptions.builder().connectTimeout(this.connectTimeout).build();
		}

		/**
		 * Requests' deadlines are judged on the I/O thread (EventLoopTimeouts). Lettuce's own command timeout, on a
		 * timer thread of its own, would race the I/O thread as the old deadline did (it failed requests in a burst
		 * whose replies had arrived); it stays only as a backstop that drops commands a hung Redis never answers.
		 */
		TimeoutOptions timeoutOptions() {
			return TimeoutOptions.enabled(this.timeout.multipliedBy(FairDeadlines.BACKSTOP));
		}

		void shutdown() {
			this.resources.shutdown(0, 2, TimeUnit.SECONDS);
		}

	}

}
