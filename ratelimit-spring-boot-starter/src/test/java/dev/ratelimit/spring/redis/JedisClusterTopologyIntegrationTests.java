package dev.ratelimit.spring.redis;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.ratelimit.test.TestRedisCluster;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JedisClusterTopology} on a real three-master cluster: however many commands meet a failing node and ask for
 * the slots to be renewed, the cluster is asked at most once per second ({@code CLUSTER SLOTS}, counted by the nodes).
 */
class JedisClusterTopologyIntegrationTests {

	@Test
	void renewalsAfterConnectionFailuresAreAtMostOnePerSecond() {
		try (TestRedisCluster redis = TestRedisCluster.start()) {
			Set<HostAndPort> nodes = new LinkedHashSet<>();
			redis.ports().forEach((port) -> nodes.add(new HostAndPort(redis.host(), port)));
			long start = System.nanoTime();
			try (JedisClusterTopology topology = new JedisClusterTopology(nodes, DefaultJedisClientConfig.builder().build(),
					new GenericObjectPoolConfig<Connection>())) {
				long discovery = clusterSlots(redis);
				for (int i = 0; i < 200; i++) {
					topology.renewSlotCache();
				}
				long renewals = clusterSlots(redis) - discovery;
				double seconds = (System.nanoTime() - start) / 1e9;
				assertThat(renewals).as("CLUSTER SLOTS for 200 renewals in %.2f s", seconds)
					.isBetween(1L, 1 + (long) seconds);
			}
		}
	}

	/** {@code CLUSTER SLOTS} the nodes have run ({@code INFO commandstats}). */
	private static long clusterSlots(TestRedisCluster redis) {
		long calls = 0;
		for (int node = 0; node < TestRedisCluster.NODES; node++) {
			for (String line : ((String) redis.call(node, "INFO", "commandstats")).split("\\r?\\n")) {
				if (line.startsWith("cmdstat_cluster|slots:calls=")) {
					calls += Long.parseLong(line.substring("cmdstat_cluster|slots:calls=".length(), line.indexOf(',')));
				}
			}
		}
		return calls;
	}

}
