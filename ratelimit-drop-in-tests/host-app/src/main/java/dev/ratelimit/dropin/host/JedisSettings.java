package dev.ratelimit.dropin.host;

import java.util.Map;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/** The settings of a Jedis connection factory. Loaded only where Jedis is on the class path. */
final class JedisSettings {

	private JedisSettings() {
	}

	@SuppressWarnings("NullAway") // getPoolConfig() of a factory that pools
	static boolean describe(RedisConnectionFactory candidate, Map<String, String> report) {
		if (!(candidate instanceof JedisConnectionFactory factory)) {
			return false;
		}
		report.put("jedis.target", factory.getHostName() + ":" + factory.getPort() + "/" + factory.getDatabase());
		report.put("jedis.sentinelAware", String.valueOf(factory.isRedisSentinelAware()));
		report.put("jedis.clusterAware", String.valueOf(factory.isRedisClusterAware()));
		report.put("jedis.timeout", String.valueOf(factory.getTimeout()));
		JedisClientConfiguration client = factory.getClientConfiguration();
		report.put("jedis.clientConfiguration.class", OwnershipReport.typeName(client.getClass()));
		report.put("jedis.readTimeout", String.valueOf(client.getReadTimeout()));
		report.put("jedis.connectTimeout", String.valueOf(client.getConnectTimeout()));
		report.put("jedis.useSsl", String.valueOf(client.isUseSsl()));
		report.put("jedis.clientName", String.valueOf(client.getClientName().orElse(null)));
		report.put("jedis.pooling", String.valueOf(client.isUsePooling()));
		if (client.isUsePooling()) {
			GenericObjectPoolConfig<?> pool = factory.getPoolConfig();
			report.put("jedis.pool.maxTotal", String.valueOf(pool.getMaxTotal()));
			report.put("jedis.pool.maxIdle", String.valueOf(pool.getMaxIdle()));
			report.put("jedis.pool.minIdle", String.valueOf(pool.getMinIdle()));
			report.put("jedis.pool.maxWait", String.valueOf(pool.getMaxWaitDuration()));
			report.put("jedis.pool.timeBetweenEvictionRuns", String.valueOf(pool.getDurationBetweenEvictionRuns()));
			report.put("jedis.pool.testOnBorrow", String.valueOf(pool.getTestOnBorrow()));
			report.put("jedis.pool.testWhileIdle", String.valueOf(pool.getTestWhileIdle()));
			report.put("jedis.pool.blockWhenExhausted", String.valueOf(pool.getBlockWhenExhausted()));
		}
		return true;
	}

}
