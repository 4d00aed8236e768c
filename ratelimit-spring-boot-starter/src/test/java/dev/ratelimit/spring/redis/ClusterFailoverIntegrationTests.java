package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.spring.redis.FailoverApplication.Instance;
import dev.ratelimit.spring.redis.FailoverTraffic.Kind;
import dev.ratelimit.spring.test.ClientTags;
import dev.ratelimit.test.TestRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis Cluster failover under traffic: a cluster of three masters and their replicas
 * ({@code cluster-node-timeout} 2 s), and four instances of one application on it, two with the limiter on Lettuce
 * and two on Jedis, all sending requests of a client that has used up its budget, whose keys live on one master.
 * That master is killed, or frozen ({@code SIGSTOP}: it keeps its connections and answers nothing); the cluster
 * promotes its replica some 4 s later, seen by polling {@code ROLE} on the replica. Measured per instance: the time
 * from the promotion to the first 429 carrying Redis's fields, and the requests that failed open in between.
 *
 * <p>
 * Each instance must deny with Redis within {@link Failovers#RESUME} (2 s) of the promotion, with a
 * {@link Failovers#MARGIN} (1.5 s) for a loaded machine and the measurement. Until then every request follows the
 * failure policy (fail-open) within its deadline, never a 500 or a long wait ({@link Failovers#BOUND}); from then
 * on, every request is denied by Redis. The commands the limiter's clients send to learn the topology are counted on
 * the nodes left ({@code INFO commandstats}): at most one refresh per second and instance.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterFailoverIntegrationTests {

	private static final Pattern COMMAND_STAT = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)");

	private TestRedisCluster redis;

	private final List<Instance> instances = new ArrayList<>();

	/** The node a test killed, if any. */
	private int dead = -1;

	@BeforeAll
	void startClusterAndInstances() {
		this.redis = TestRedisCluster.startWithReplicas();
		for (String client : List.of("lettuce", "jedis")) {
			for (int i = 1; i <= 2; i++) {
				this.instances.add(FailoverApplication.start(client + "-" + i, client,
						"spring.data.redis.cluster.nodes=" + this.redis.nodes()));
			}
		}
	}

	@AfterAll
	void stopInstancesAndCluster() {
		try {
			this.instances.forEach(Instance::close);
		}
		finally {
			if (this.redis != null) {
				this.redis.close();
			}
		}
	}

	@Test
	void killedMaster() {
		try {
			failover(0, this.redis::kill, "Cluster, killed master");
		}
		finally {
			this.dead = 0;
		}
	}

	@Test
	void frozenMaster() {
		try {
			failover(1, this.redis::pause, "Cluster, frozen master");
		}
		finally {
			this.redis.resume(1);
		}
	}

	private void failover(int master, IntConsumer fail, String title) {
		String client = clientOn(master);
		Failovers.exhaust(this.instances, client);
		this.redis.awaitReplicaInSync(master);
		int replica = TestRedisCluster.replicaOf(master);
		List<Integer> survivors = new ArrayList<>();
		for (int node = 0; node < 2 * TestRedisCluster.NODES; node++) {
			if (node != master && node != this.dead) {
				survivors.add(node);
			}
		}
		Map<String, Long> before = commands(survivors);
		long start = System.nanoTime();
		Outage outage = Failovers.outage(this.instances, client, () -> fail.accept(master),
				(traffic, failed) -> Failovers.awaitEvent("node " + replica + " promoted", () -> "master".equals(this.redis.role(replica)),
						Duration.ofSeconds(20)),
				Set.of(Kind.DENIED));
		double seconds = (System.nanoTime() - start) / 1e9;
		Map<String, Long> cost = commands(survivors);
		cost.replaceAll((command, calls) -> calls - before.getOrDefault(command, 0L));
		Failovers.assertResumed(outage, this.instances, title + " (recovery: the replica's promotion)");
		System.out.printf(Locale.ROOT, "  topology commands on the %d nodes left, over %.1f s: %s%n", survivors.size(),
				seconds, topologyCommands(cost));
		// Lettuce's refreshes (CLUSTER NODES on every node) and Jedis' renewals (CLUSTER SLOTS on one node): each
		// instance at most one per second (failures), and Lettuce one per 30 s (periodic), plus one either side of the
		// window.
		long bound = 2 * (long) Math.ceil(seconds + seconds / 30 + 2);
		assertThat(cost.getOrDefault("cluster|slots", 0L)).as("CLUSTER SLOTS of the two Jedis instances")
			.isLessThanOrEqualTo(bound);
		assertThat(cost.getOrDefault("cluster|nodes", 0L)).as("CLUSTER NODES of the two Lettuce instances")
			.isLessThanOrEqualTo(bound * survivors.size());
	}

	/** Calls per command on {@code nodes}, summed ({@code INFO commandstats}). */
	private Map<String, Long> commands(List<Integer> nodes) {
		Map<String, Long> calls = new TreeMap<>();
		for (int node : nodes) {
			for (String line : ((String) this.redis.call(node, "INFO", "commandstats")).split("\\r?\\n")) {
				Matcher stat = COMMAND_STAT.matcher(line);
				if (stat.lookingAt()) {
					calls.merge(stat.group(1), Long.parseLong(stat.group(2)), Long::sum);
				}
			}
		}
		return calls;
	}

	/** What the limiter's clients send to learn the topology: their handshakes, and what they ask. */
	private static Map<String, Long> topologyCommands(Map<String, Long> calls) {
		Map<String, Long> topology = new TreeMap<>(calls);
		topology.keySet().retainAll(Set.of("hello", "client|setname", "cluster|nodes", "cluster|slots", "info"));
		return topology;
	}

	/**
	 * A client whose keys live on {@code master}: their hash tag's slot is in its third. The client key of an
	 * expression's value {@code c} is {@code key:c}, as docs/OPERATIONS.md documents.
	 */
	private String clientOn(int master) {
		for (int i = 0;; i++) {
			String client = "client-" + master + "-" + i;
			if (TestRedisCluster.nodeOfSlot(this.redis.slot("{" + ClientTags.of("key:" + client) + "}")) == master) {
				return client;
			}
		}
	}

}
