package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.Set;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * The limiter's Jedis cluster connections, with a bound on how often they ask the cluster for its slots.
 *
 * <p>
 * {@code JedisCluster} renews its map of slots to masters ({@code CLUSTER SLOTS} on one node) after two connection
 * failures in a row within one command, and after a {@code MOVED} redirection. So after a master fails, every
 * command that meets it renews the map, and the first renewal after the replica's promotion finds it. But with
 * nothing in between, a failing master costs a {@code CLUSTER SLOTS} or two per command that meets it, per instance,
 * for as long as it is down (106 in 4.5 s from two instances sending 100 requests a second each, in
 * {@code ClusterFailoverIntegrationTests}). Renewals after failures are therefore made at most once per {@link #INTERVAL} (1 s),
 * so decisions resume within about a second of the promotion; those after {@code MOVED} (the cluster itself says the
 * map is wrong) are not limited. So a stale map lasts until the first command it misroutes: one to a node that no
 * longer serves the slot gets {@code MOVED}, one to a dead or frozen node fails. Jedis' own periodic renewal is not
 * used: it runs on a thread that is no daemon, which would keep an application that never closes the limiter (one
 * that just returns from {@code main}) from exiting.
 *
 * <p>
 * The cost: nothing while the cluster is healthy; at most one {@code CLUSTER SLOTS} per second per application
 * instance while a node fails.
 */
public final class JedisClusterTopology extends ClusterConnectionProvider {

	/** The least time between two renewals after connection failures. */
	static final Duration INTERVAL = Duration.ofSeconds(1);

	private final OncePerInterval renewals = new OncePerInterval(INTERVAL);

	public JedisClusterTopology(Set<HostAndPort> nodes, JedisClientConfig config, GenericObjectPoolConfig<Connection> pool) {
		super(nodes, config, pool);
	}

	/** After connection failures: at most once per {@link #INTERVAL}. */
	@Override
	public void renewSlotCache() {
		if (this.renewals.tryAcquire()) {
			super.renewSlotCache();
		}
	}

}
