package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.redis.JedisChannelSubscriber;
import dev.ratelimit.core.redis.PooledJedisScriptExecutor;
import dev.ratelimit.spring.redis.JedisClusterTopology;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.util.Assert;

/**
 * Builds the limiter's Jedis client for a {@link RedisTarget}: standalone, Sentinel or Cluster, with the target's
 * credentials and TLS, and a pool of the limiter's own.
 */
final class JedisClients {

	private JedisClients() {
	}

	static PooledJedisScriptExecutor create(RedisTarget target, Duration timeout, Duration connectTimeout,
			int poolSize, List<LuaScript> preloaded) {
		GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(poolSize);
		pool.setMaxIdle(poolSize);
		// One thread per connection never waits for a connection; the bound is for safety.
		pool.setMaxWait(timeout);
		Settings settings = new Settings(target, timeout, connectTimeout);
		return new PooledJedisScriptExecutor(() -> client(settings, pool), poolSize, timeout,
				preloaded);
	}

	/**
	 * The subscriber to the releases of leases ({@code PSUBSCRIBE}) for a {@link RedisTarget}: a client of its own,
	 * made at the first subscription, whose one connection the subscription holds (a subscription waits without a
	 * socket timeout).
	 */
	static JedisChannelSubscriber subscriber(RedisTarget target, Duration timeout, Duration connectTimeout) {
		GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		pool.setMaxIdle(1);
		pool.setMaxWait(timeout);
		Settings settings = new Settings(target, timeout, connectTimeout);
		return new JedisChannelSubscriber(() -> client(settings, pool));
	}

	private static UnifiedJedis client(Settings settings, GenericObjectPoolConfig<Connection> pool) {
		DataRedisConnectionDetails details = settings.target().details();
		Duration timeout = settings.timeout();
		if (details.getCluster() != null) {
			JedisClusterTopology nodes = new JedisClusterTopology(hosts(details.getCluster().getNodes()),
					settings.config(details.getUsername(), details.getPassword(), 0), pool);
			// Jedis' own bound on a command's retries: one socket timeout per attempt.
			return new JedisCluster(nodes, JedisCluster.DEFAULT_MAX_ATTEMPTS,
					timeout.multipliedBy(JedisCluster.DEFAULT_MAX_ATTEMPTS));
		}
		if (details.getSentinel() != null) {
			DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
			return new JedisSentineled(sentinel.getMaster(),
					settings.config(details.getUsername(), details.getPassword(), sentinel.getDatabase()),
					pool, hosts(sentinel.getNodes()),
					settings.config(sentinel.getUsername(), sentinel.getPassword(), 0));
		}
		DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
		Assert.state(standalone != null, "The Redis connection details name no standalone, sentinel or cluster Redis");
		return new JedisPooled(new HostAndPort(standalone.getHost(), standalone.getPort()),
				settings.config(details.getUsername(), details.getPassword(), standalone.getDatabase()),
				pool);
	}

	private static Set<HostAndPort> hosts(List<DataRedisConnectionDetails.Node> nodes) {
		Set<HostAndPort> hosts = new LinkedHashSet<>();
		nodes.forEach((node) -> hosts.add(new HostAndPort(node.host(), node.port())));
		return hosts;
	}

	/** What every connection of the limiter is configured with: its target's TLS, and the timeouts. */
	private record Settings(RedisTarget target, Duration timeout, Duration connectTimeout) {

		JedisClientConfig config(@Nullable String username, @Nullable String password, int database) {
			DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
				.user(username)
				.password(password)
				.database(database)
				.socketTimeoutMillis((int) this.timeout.toMillis())
				.connectionTimeoutMillis((int) this.connectTimeout.toMillis())
				.clientName(RedisTarget.CLIENT_NAME);
			SslBundle ssl = this.target.ssl();
			if (ssl != null) {
				config.ssl(true).sslSocketFactory(ssl.createSslContext().getSocketFactory());
			}
			return config.build();
		}

	}

}
