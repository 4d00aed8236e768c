package dev.ratelimit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * A real Redis Cluster for tests: three {@code redis-server} master processes on free loopback ports, each owning
 * a third of the 16384 hash slots, started for the caller and stopped by {@link #close()} (and, as a last resort,
 * when the JVM exits), which also deletes their cluster configuration files. {@link #startWithReplicas()} adds a
 * replica to each master (nodes {@value #NODES} to 5, node {@code NODES + i} replicating master {@code i}), with a
 * {@code cluster-node-timeout} of {@value #FAILOVER_NODE_TIMEOUT_MS} ms, so that a replica takes over a master that
 * is {@link #kill killed} or {@link #pause paused} some 4 s later.
 *
 * <p>
 * The binary is chosen as for {@link TestRedis}'s processes: the {@code redis-server} on the {@code PATH}, or else
 * the Redis 6.2 binary of the {@code com.github.codemonstur:embedded-redis} artifact; the system property
 * {@code test.redis=embedded} or {@code path} forces a choice. Processes are used even where Docker is
 * available. No {@code redis-cli} is needed: the cluster is formed over plain RESP ({@code CLUSTER ADDSLOTS},
 * {@code CLUSTER SET-CONFIG-EPOCH}, {@code CLUSTER MEET}), and {@link #start()} returns once every node reports
 * {@code cluster_state:ok}.
 */
public final class TestRedisCluster implements AutoCloseable {

	/** Number of master nodes. */
	public static final int NODES = 3;

	/** The {@code cluster-node-timeout} of a cluster with replicas: a master silent that long is failed over. */
	public static final int FAILOVER_NODE_TIMEOUT_MS = 2000;

	/** Hash slots of a Redis Cluster. */
	public static final int SLOTS = 16384;

	private static final String HOST = "127.0.0.1";

	/** A node's cluster bus listens on its port + 10000, which must be a valid and free port too. */
	private static final int BUS_PORT_OFFSET = 10000;

	private static final Duration CLUSTER_OK_TIMEOUT = Duration.ofSeconds(20);

	private final Path directory;

	private final List<Integer> ports = new ArrayList<>();

	private final List<Process> processes = new ArrayList<>();

	private final boolean replicas;

	private boolean closed;

	private TestRedisCluster(Path binary, boolean replicas) {
		this.replicas = replicas;
		try {
			this.directory = Files.createTempDirectory("redis-cluster-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Runtime.getRuntime().addShutdownHook(new Thread(this::close));
		try {
			for (int node = 0; node < totalNodes(); node++) {
				startNode(binary);
			}
			formCluster();
			if (replicas) {
				addReplicas();
			}
		}
		catch (RuntimeException ex) {
			String logs = ServerDirectory.logs(this.directory);
			close();
			throw new IllegalStateException("could not start a Redis Cluster with " + binary + logs, ex);
		}
	}

	/** A new cluster of {@value #NODES} masters, owned by the caller. */
	public static TestRedisCluster start() {
		return new TestRedisCluster(TestRedis.localBinary(TestRedis.choice()), false);
	}

	/**
	 * A new cluster of {@value #NODES} masters (nodes 0 to 2) and a replica of each (node {@code NODES + i} of master
	 * {@code i}), owned by the caller; returns once every replica is in sync with its master.
	 */
	public static TestRedisCluster startWithReplicas() {
		return new TestRedisCluster(TestRedis.localBinary(TestRedis.choice()), true);
	}

	public String host() {
		return HOST;
	}

	/** The nodes' ports, node 0 first: the masters, then their replicas, if any. */
	public List<Integer> ports() {
		return List.copyOf(this.ports);
	}

	/** {@code 127.0.0.1:p0,127.0.0.1:p1,...}, every node, for {@code spring.data.redis.cluster.nodes}. */
	public String nodes() {
		return this.ports.stream().map((port) -> HOST + ":" + port).collect(Collectors.joining(","));
	}

	/**
	 * Sends one command to node {@code node} (0 to {@value #NODES} - 1, then the replicas), on a new connection, and returns its
	 * reply: a {@code String} (simple or bulk string), a {@code Long}, a {@code List} of replies, or {@code null}.
	 * @throws IllegalStateException with Redis' message when it answers an error, such as {@code MOVED ...}
	 */
	public @Nullable Object call(int node, String... words) {
		return Resp.call(HOST, this.ports.get(node), words);
	}

	/** The hash slot of {@code key}, as the cluster computes it ({@code CLUSTER KEYSLOT} on the first node that runs). */
	@SuppressWarnings("NullAway") // CLUSTER KEYSLOT never answers nil
	public int slot(String key) {
		RuntimeException failure = null;
		for (int node = 0; node < this.ports.size(); node++) {
			try {
				return ((Long) call(node, "CLUSTER", "KEYSLOT", key)).intValue();
			}
			catch (RuntimeException ex) {
				failure = ex;
			}
		}
		throw failure;
	}

	/** The node (0 to {@value #NODES} - 1) that serves {@code key}'s slot. */
	public int nodeOf(String key) {
		return nodeOfSlot(slot(key));
	}

	/**
	 * The node (0 to {@value #NODES} - 1) that served {@code slot} when the cluster started: node {@code i} owns the
	 * i-th third until a replica takes over.
	 */
	public static int nodeOfSlot(int slot) {
		for (int node = 0; node < NODES; node++) {
			if (slot <= lastSlot(node)) {
				return node;
			}
		}
		throw new IllegalArgumentException("no hash slot " + slot);
	}

	/** Empties the script cache of every node ({@code SCRIPT FLUSH}). */
	public void scriptFlush() {
		for (int node = 0; node < NODES; node++) {
			call(node, "SCRIPT", "FLUSH");
		}
	}

	/** The node that replicated master {@code master} when the cluster started. */
	public static int replicaOf(int master) {
		return NODES + master;
	}

	/** The first element of {@code ROLE} on {@code node}: {@code master} or {@code slave}. */
	@SuppressWarnings("NullAway") // ROLE never answers nil
	public String role(int node) {
		return (String) ((List<?>) call(node, "ROLE")).get(0);
	}

	/** Kills {@code node}'s process ({@code SIGKILL}) and waits until it is gone: its port refuses connections. */
	public void kill(int node) {
		Process process = this.processes.get(node);
		process.destroyForcibly();
		TestRedis.waitFor(process);
	}

	/**
	 * Freezes {@code node} ({@code SIGSTOP}): its port still accepts connections, but it answers nothing, not even the
	 * other nodes, until {@link #resume}.
	 */
	public void pause(int node) {
		TestRedis.signal(this.processes.get(node), "STOP");
	}

	/** Undoes {@link #pause}. */
	public void resume(int node) {
		TestRedis.signal(this.processes.get(node), "CONT");
	}

	/**
	 * Waits (at most 20 s) until the replica of master {@code master} has every write {@code master} had when this was
	 * called, with its link up.
	 */
	public void awaitReplicaInSync(int master) {
		long masterOffset = Long.parseLong(info(master, "replication").get("master_repl_offset"));
		int replica = replicaOf(master);
		long deadline = System.nanoTime() + CLUSTER_OK_TIMEOUT.toNanos();
		while (true) {
			Map<String, String> info = info(replica, "replication");
			if ("slave".equals(info.get("role")) && "up".equals(info.get("master_link_status"))
					&& Long.parseLong(info.get("slave_repl_offset")) >= masterOffset) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("node " + replica + " did not replicate node " + master + " up to offset "
						+ masterOffset + " within " + CLUSTER_OK_TIMEOUT + ": " + info);
			}
			TestRedis.sleepBriefly();
		}
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		for (Process process : this.processes) {
			// SIGKILL ends a paused process too.
			if (process.isAlive()) {
				process.destroyForcibly();
			}
		}
		this.processes.forEach(TestRedis::waitFor);
		ServerDirectory.delete(this.directory);
	}

	private void startNode(Path binary) {
		// Another process may take the port between our check and redis-server's bind: try a few.
		RuntimeException failure = null;
		for (int attempt = 0; attempt < 3; attempt++) {
			int port = freeNodePort();
			List<String> cluster = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
					this.directory.resolve("nodes-" + port + ".conf").toString(), "--dir", this.directory.toString()));
			if (this.replicas) {
				// Redis 7 syncs replicas diskless by default, after a 5 s wait for more replicas: no wait here.
				cluster.addAll(List.of("--cluster-node-timeout", Integer.toString(FAILOVER_NODE_TIMEOUT_MS),
						"--repl-diskless-sync-delay", "0"));
			}
			try {
				Process process = TestRedis.launch(binary, port, cluster,
						ProcessBuilder.Redirect.to(this.directory.resolve("node-" + port + ".log").toFile()));
				this.processes.add(process);
				this.ports.add(port);
				return;
			}
			catch (IllegalStateException ex) {
				failure = ex;
			}
		}
		throw failure;
	}

	private void formCluster() {
		for (int node = 0; node < NODES; node++) {
			List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
			for (int slot = firstSlot(node); slot <= lastSlot(node); slot++) {
				addSlots.add(Integer.toString(slot));
			}
			requireOk(call(node, addSlots.toArray(String[]::new)));
			// As redis-cli --cluster create does: distinct epochs, so no collision has to be resolved first.
			requireOk(call(node, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(node + 1)));
		}
		for (int node = 1; node < totalNodes(); node++) {
			requireOk(call(0, "CLUSTER", "MEET", HOST, Integer.toString(this.ports.get(node))));
		}
		long deadline = System.nanoTime() + CLUSTER_OK_TIMEOUT.toNanos();
		for (int node = 0; node < totalNodes(); node++) {
			while (!clusterOk(node)) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("no cluster_state:ok within " + CLUSTER_OK_TIMEOUT + "; node " + node
							+ " reports:\n" + call(node, "CLUSTER", "INFO") + "\n" + call(node, "CLUSTER", "NODES"));
				}
				TestRedis.sleepBriefly();
			}
		}
	}

	@SuppressWarnings("NullAway") // CLUSTER INFO never answers nil
	private boolean clusterOk(int node) {
		String info = (String) call(node, "CLUSTER", "INFO");
		return info.contains("cluster_state:ok") && info.contains("cluster_slots_assigned:" + SLOTS)
				&& info.contains("cluster_known_nodes:" + totalNodes());
	}

	/** Makes node {@code NODES + i} a replica of master {@code i}, and waits until each is in sync. */
	@SuppressWarnings("NullAway") // CLUSTER MYID never answers nil
	private void addReplicas() {
		for (int master = 0; master < NODES; master++) {
			String id = (String) call(master, "CLUSTER", "MYID");
			requireOk(call(replicaOf(master), "CLUSTER", "REPLICATE", id));
		}
		for (int master = 0; master < NODES; master++) {
			awaitReplicaInSync(master);
		}
	}

	private int totalNodes() {
		return this.replicas ? 2 * NODES : NODES;
	}

	/** {@code INFO section} of {@code node}, as fields. */
	@SuppressWarnings("NullAway") // INFO never answers nil
	private Map<String, String> info(int node, String section) {
		Map<String, String> fields = new HashMap<>();
		for (String line : ((String) call(node, "INFO", section)).split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0) {
				fields.put(line.substring(0, colon), line.substring(colon + 1));
			}
		}
		return fields;
	}

	private static int firstSlot(int node) {
		return node * SLOTS / NODES;
	}

	private static int lastSlot(int node) {
		return (node + 1) * SLOTS / NODES - 1;
	}

	private static void requireOk(@Nullable Object reply) {
		if (!"OK".equals(reply)) {
			throw new IllegalStateException("expected OK but Redis replied " + reply);
		}
	}

	/** A free port whose cluster bus port is free too, distinct from the nodes' so far. */
	private int freeNodePort() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = TestRedis.freePort();
			if (port + BUS_PORT_OFFSET <= 65535 && !this.ports.contains(port) && !usedAsBus(port)
					&& free(port + BUS_PORT_OFFSET)) {
				return port;
			}
		}
		throw new IllegalStateException("found no free port p with p + " + BUS_PORT_OFFSET + " free as well");
	}

	private boolean usedAsBus(int port) {
		Set<Integer> taken = new HashSet<>();
		for (int used : this.ports) {
			taken.add(used + BUS_PORT_OFFSET);
			taken.add(used - BUS_PORT_OFFSET);
		}
		return taken.contains(port);
	}

	private static boolean free(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
