package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.ratelimit.core.LuaScript;
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
		return new PooledJedisScriptExecutor(() -> client(target, timeout, connectTimeout, pool), poolSize, timeout,
				preloaded);
	}

	private static UnifiedJedis client(RedisTarget target, Duration timeout, Duration connectTimeout,
			GenericObjectPoolConfig<Connection> pool) {
		DataRedisConnectionDetails details = target.details();
		if (details.getCluster() != null) {
			JedisClusterTopology nodes = new JedisClusterTopology(hosts(details.getCluster().getNodes()),
					config(target, details.getUsername(), details.getPassword(), 0, timeout, connectTimeout), pool);
			// Jedis' own bound on a command's retries: one socket timeout per attempt.
			return new JedisCluster(nodes, JedisCluster.DEFAULT_MAX_ATTEMPTS,
					timeout.multipliedBy(JedisCluster.DEFAULT_MAX_ATTEMPTS));
		}
		if (details.getSentinel() != null) {
			DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
			return new JedisSentineled(sentinel.getMaster(),
					config(target, details.getUsername(), details.getPassword(), sentinel.getDatabase(), timeout,
							connectTimeout),
					pool, hosts(sentinel.getNodes()),
					config(target, sentinel.getUsername(), sentinel.getPassword(), 0, timeout, connectTimeout));
		}
		DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
		Assert.state(standalone != null, "The Redis connection details name no standalone, sentinel or cluster Redis");
		return new JedisPooled(new HostAndPort(standalone.getHost(), standalone.getPort()),
				config(target, details.getUsername(), details.getPassword(), standalone.getDatabase(), timeout,
						connectTimeout),
				pool);
	}

	private static Set<HostAndPort> hosts(List<DataRedisConnectionDetails.Node> nodes) {
		Set<HostAndPort> hosts = new LinkedHashSet<>();
		nodes.forEach((node) -> hosts.add(new HostAndPort(node.host(), node.port())));
		return hosts;
	}

	private static JedisClientConfig config(RedisTarget target, @Nullable String username, @Nullable String password,
			int database, Duration timeout, Duration connectTimeout) {
		DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
			.user(username)
			.password(password)
			.database(database)
			.socketTimeoutMillis((int) timeout.toMillis())
			.connectionTimeoutMillis((int) connectTimeout.toMillis())
			.clientName(RedisTarget.CLIENT_NAME);
		SslBundle ssl = target.ssl();
		if (ssl != null) {
			config.ssl(true).sslSocketFactory(ssl.createSslContext().getSocketFactory());
		}
		return config.build();
	}

}
