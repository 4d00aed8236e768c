package dev.ratelimit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A real Redis Sentinel deployment for tests: a master and a replica {@code redis-server} process and one Sentinel
 * ({@code redis-server <config> --sentinel}), or {@link #start(int) several}, monitoring them as
 * {@value #MASTER_NAME} with a quorum of 1, all on free loopback ports, started for the caller and stopped by
 * {@link #close()} (and, as a last resort, when the JVM exits), which also deletes their configuration, data and log
 * files.
 *
 * <p>
 * The binary is chosen as for {@link TestRedis}'s processes: the {@code redis-server} on the {@code PATH}, or else
 * the Redis 6.2 binary of the {@code com.github.codemonstur:embedded-redis} artifact; the system property
 * {@code test.redis=embedded} or {@code path} forces a choice. Processes are used even where Docker is
 * available. {@link #start()} returns once the Sentinel reports the master, sees the replica with its link to the
 * master up, and the replica has every write of the master.
 *
 * <p>
 * {@link #failover()} promotes the replica through {@code SENTINEL FAILOVER} and returns once the Sentinel reports
 * it as the master. The Sentinel turns the old master into a replica of the new one only some 10 s later;
 * {@link #awaitReplicaInSync()} waits for that. {@link #killMaster()} kills the master's process instead, which the
 * Sentinels find down after 1 s ({@code down-after-milliseconds}) and then fail over.
 */
public final class TestRedisSentinel implements AutoCloseable {

	/** The name the Sentinel monitors the master under. */
	public static final String MASTER_NAME = "mymaster";

	private static final String HOST = "127.0.0.1";

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

	/** Includes the Sentinel's own delay (about 10 s) before it reconfigures an old master as a replica. */
	private static final Duration REPLICA_SYNC_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(20);

	private final Path binary;

	private final Path directory;

	/** The two data servers: the first master, then the first replica. */
	private final List<Integer> ports = new ArrayList<>();

	private final List<Process> processes = new ArrayList<>();

	private final List<Integer> sentinelPorts = new ArrayList<>();

	/** The Sentinels' processes, in the order of {@link #sentinelPorts}; a stopped one stays until restarted. */
	private final List<Process> sentinels = new ArrayList<>();

	private final Thread shutdownHook = new Thread(this::close);

	private boolean closed;

	private TestRedisSentinel(Path binary, int sentinels) {
		this.binary = binary;
		try {
			this.directory = Files.createTempDirectory("redis-sentinel-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
		try {
			int master = startServer(List.of());
			int replica = startServer(List.of("--replicaof", HOST, Integer.toString(master)));
			awaitInSync(master, replica, READY_TIMEOUT);
			for (int sentinel = 0; sentinel < sentinels; sentinel++) {
				startSentinel(master);
			}
			for (int port : this.sentinelPorts) {
				awaitSentinelReady(port, master, replica);
			}
		}
		catch (RuntimeException ex) {
			String logs = ServerDirectory.logs(this.directory);
			close();
			throw new IllegalStateException("could not start Redis Sentinel with " + binary + logs, ex);
		}
	}

	/** A new master, replica and Sentinel, owned by the caller. */
	public static TestRedisSentinel start() {
		return start(1);
	}

	/**
	 * A new master, replica and {@code sentinels} Sentinels (each with a quorum of 1), owned by the caller. Two
	 * Sentinels fail a master over on their own only when both are up (a majority of two must elect the leader);
	 * {@link #failover(int)} needs just one.
	 */
	public static TestRedisSentinel start(int sentinels) {
		return new TestRedisSentinel(TestRedis.localBinary(TestRedis.choice()), sentinels);
	}

	/** {@value #MASTER_NAME}, for {@code spring.data.redis.sentinel.master}. */
	public String masterName() {
		return MASTER_NAME;
	}

	public String host() {
		return HOST;
	}

	/** The first Sentinel's port. */
	public int sentinelPort() {
		return this.sentinelPorts.get(0);
	}

	/** The Sentinels' ports, in the order of {@link #sentinelNodes()}. */
	public List<Integer> sentinelPorts() {
		return List.copyOf(this.sentinelPorts);
	}

	/** {@code 127.0.0.1:<sentinel port>,...}, every Sentinel, for {@code spring.data.redis.sentinel.nodes}. */
	public String sentinelNodes() {
		return String.join(",", this.sentinelPorts.stream().map((port) -> HOST + ":" + port).toList());
	}

	/** The ports of the two data servers, the first master first. */
	public List<Integer> ports() {
		return List.copyOf(this.ports);
	}

	/** The master's port, as the Sentinel reports it now ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}). */
	public int masterPort() {
		Object reply = sentinel("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
		if (!(reply instanceof List<?> address) || address.size() != 2) {
			throw new IllegalStateException("the Sentinel knows no master " + MASTER_NAME + ": " + reply);
		}
		return Integer.parseInt((String) address.get(1));
	}

	/** The port of the data server that is not the {@link #masterPort() master}. */
	public int replicaPort() {
		int master = masterPort();
		return this.ports.stream()
			.filter((port) -> port != master)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("the Sentinel reports an unknown master port " + master));
	}

	/**
	 * Sends one command to the server on {@code port} (a data server or the Sentinel), on a new connection, and
	 * returns its reply: a {@code String} (simple or bulk string), a {@code Long}, a {@code List} of replies, or
	 * {@code null}.
	 * @throws IllegalStateException with Redis' message when it answers an error, such as {@code READONLY ...}
	 */
	public @Nullable Object call(int port, String... words) {
		return Resp.call(HOST, port, words);
	}

	/** {@link #call(int, String...)} on the first Sentinel that runs. */
	public @Nullable Object sentinel(String... words) {
		for (int i = 0; i < this.sentinels.size(); i++) {
			if (this.sentinels.get(i).isAlive()) {
				return call(this.sentinelPorts.get(i), words);
			}
		}
		throw new IllegalStateException("no Sentinel runs");
	}

	/** Kills Sentinel {@code index} (its process, {@code SIGKILL}) until {@link #restartSentinel}. */
	public void stopSentinel(int index) {
		Process sentinel = this.sentinels.get(index);
		sentinel.destroyForcibly();
		TestRedis.waitFor(sentinel);
	}

	/**
	 * Starts Sentinel {@code index} again on its port, with the configuration it last wrote, and waits (at most 10 s)
	 * until it answers {@code PING}.
	 */
	public void restartSentinel(int index) {
		int port = this.sentinelPorts.get(index);
		this.sentinels.set(index, launchSentinel(port, masterPort()));
		this.processes.add(this.sentinels.get(index));
	}

	/**
	 * Kills the master's process ({@code SIGKILL}) and waits until it is gone: its port refuses connections. The
	 * Sentinels find it down 1 s later and promote the replica.
	 * @return the killed master's port
	 */
	public int killMaster() {
		int master = masterPort();
		Process process = this.processes.get(this.ports.indexOf(master));
		process.destroyForcibly();
		TestRedis.waitFor(process);
		return master;
	}

	/** The {@code role} line of {@code INFO replication} of the server on {@code port}: {@code master} or {@code slave}. */
	public @Nullable String role(int port) {
		return info(port).get("role");
	}

	/**
	 * Makes the replica the master through {@code SENTINEL FAILOVER}, once it has every write of the master (so the
	 * state written before is not lost), and waits (at most 20 s) until the Sentinel reports it as the master.
	 * @return the new master's port
	 * @throws IllegalStateException if the Sentinel does not fail over in time
	 */
	public int failover() {
		return failover(-1);
	}

	/**
	 * {@link #failover()} through Sentinel {@code index}, the one that promotes the replica and announces it
	 * ({@code +switch-master}) first.
	 */
	public int failover(int index) {
		int oldMaster = masterPort();
		awaitReplicaInSync();
		long deadline = System.nanoTime() + FAILOVER_TIMEOUT.toNanos();
		while (true) {
			try {
				Object reply = (index < 0) ? sentinel("SENTINEL", "FAILOVER", MASTER_NAME)
						: call(this.sentinelPorts.get(index), "SENTINEL", "FAILOVER", MASTER_NAME);
				if (!"OK".equals(reply)) {
					throw new IllegalStateException("SENTINEL FAILOVER replied " + reply);
				}
				break;
			}
			catch (IllegalStateException ex) {
				// NOGOODSLAVE while the Sentinel has not yet found the replica fit to promote.
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("SENTINEL FAILOVER kept failing" + ServerDirectory.logs(this.directory), ex);
				}
				sleep(100);
			}
		}
		while (true) {
			int master = masterPort();
			if (master != oldMaster) {
				return master;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("the Sentinel still reports " + HOST + ":" + oldMaster
						+ " as the master " + FAILOVER_TIMEOUT + " after SENTINEL FAILOVER" + ServerDirectory.logs(this.directory));
			}
			TestRedis.sleepBriefly();
		}
	}

	/**
	 * Waits (at most 30 s) until the {@link #replicaPort() replica} replicates the {@link #masterPort() master}, with
	 * its link up, and has every write the master had when this was called. After a {@link #failover()}, that
	 * includes the Sentinel turning the old master into a replica, which it does only some 10 s later.
	 */
	public void awaitReplicaInSync() {
		awaitInSync(masterPort(), replicaPort(), REPLICA_SYNC_TIMEOUT);
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		for (Process process : this.processes) {
			if (process.isAlive()) {
				process.destroyForcibly();
			}
		}
		this.processes.forEach(TestRedis::waitFor);
		ServerDirectory.delete(this.directory);
		if (Thread.currentThread() != this.shutdownHook) {
			try {
				Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
			}
			catch (IllegalStateException shuttingDown) {
				// the hook runs anyway, and finds everything closed
			}
		}
	}

	/** Starts a data server, with its files in the temporary directory; returns its port. */
	private int startServer(List<String> extraArguments) {
		// Another process may take the port between our check and redis-server's bind: try a few.
		RuntimeException failure = null;
		for (int attempt = 0; attempt < 3; attempt++) {
			int port = freePortNotOurs();
			// Redis 7 syncs replicas diskless by default, after a 5 s wait for more replicas: no wait here.
			List<String> arguments = new ArrayList<>(
					List.of("--dir", this.directory.toString(), "--repl-diskless-sync-delay", "0"));
			arguments.addAll(extraArguments);
			try {
				this.processes.add(TestRedis.launch(this.binary, port, arguments,
						ProcessBuilder.Redirect.to(this.directory.resolve("redis-" + port + ".log").toFile())));
				this.ports.add(port);
				return port;
			}
			catch (IllegalStateException ex) {
				failure = ex;
			}
		}
		throw failure;
	}

	private void startSentinel(int masterPort) {
		RuntimeException failure = null;
		for (int attempt = 0; attempt < 3; attempt++) {
			int port = freePortNotOurs();
			try {
				Process sentinel = launchSentinel(port, masterPort);
				this.processes.add(sentinel);
				this.sentinels.add(sentinel);
				this.sentinelPorts.add(port);
				return;
			}
			catch (IllegalStateException ex) {
				failure = ex;
			}
		}
		throw failure;
	}

	/**
	 * Starts {@code redis-server <config> --sentinel} on {@code port} (the Sentinel rewrites its configuration file,
	 * so it must be a file of its own, which a restart reuses) and waits (at most 10 s) until it answers {@code PING}.
	 */
	private Process launchSentinel(int port, int masterPort) {
		Path config = this.directory.resolve("sentinel-" + port + ".conf");
		String text = String.join("\n", "port " + port, "bind " + HOST, "dir \"" + this.directory + "\"",
				"sentinel monitor " + MASTER_NAME + " " + HOST + " " + masterPort + " 1",
				"sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
				"sentinel failover-timeout " + MASTER_NAME + " 5000", "");
		List<String> command = List.of(this.binary.toString(), config.toString(), "--sentinel", "--daemonize", "no",
				"--loglevel", "notice");
		ProcessBuilder.Redirect log = ProcessBuilder.Redirect.appendTo(this.directory.resolve("sentinel-" + port + ".log").toFile());
		Process process;
		try {
			if (!Files.exists(config)) {
				Files.writeString(config, text, StandardCharsets.UTF_8);
			}
			process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(log)
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not start " + command, ex);
		}
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (true) {
			try {
				if ("PONG".equals(Resp.call(HOST, port, "PING"))) {
					return process;
				}
			}
			catch (UncheckedIOException | IllegalStateException notYet) {
				// still starting
			}
			if (!process.isAlive() || System.nanoTime() > deadline) {
				process.destroyForcibly();
				TestRedis.waitFor(process);
				throw new IllegalStateException("the Sentinel did not start on port " + port + ": " + command);
			}
			TestRedis.sleepBriefly();
		}
	}

	/**
	 * Waits until the Sentinel reports {@code master} as {@value #MASTER_NAME}'s master and knows {@code replica} as
	 * its replica with the link to the master up, so that {@code SENTINEL FAILOVER} finds it fit to promote.
	 */
	private void awaitSentinelReady(int sentinel, int master, int replica) {
		long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
		while (!sentinelReady(sentinel, master, replica)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("the Sentinel on port " + sentinel + " did not report master " + master
						+ " with replica " + replica + " within " + READY_TIMEOUT + ": "
						+ call(sentinel, "SENTINEL", "REPLICAS", MASTER_NAME));
			}
			TestRedis.sleepBriefly();
		}
	}

	private boolean sentinelReady(int sentinel, int master, int replica) {
		try {
			Object address = call(sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
			if (!(address instanceof List<?> hostAndPort) || !Integer.toString(master).equals(hostAndPort.get(1))) {
				return false;
			}
			Object replicas = call(sentinel, "SENTINEL", "REPLICAS", MASTER_NAME);
			if (!(replicas instanceof List<?> list)) {
				return false;
			}
			for (Object entry : list) {
				Map<String, String> fields = fields(entry);
				if (Integer.toString(replica).equals(fields.get("port")) && "slave".equals(fields.get("flags"))
						&& "ok".equals(fields.get("master-link-status"))) {
					return true;
				}
			}
			return false;
		}
		catch (IllegalStateException | UncheckedIOException notYet) {
			return false;
		}
	}

	/**
	 * Waits until {@code replica} replicates {@code master} with its link up and has every write {@code master} had
	 * when this was called (its replication offset).
	 */
	private void awaitInSync(int master, int replica, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		long masterOffset = -1;
		while (true) {
			Map<String, String> replicaInfo = Map.of();
			try {
				if (masterOffset < 0) {
					Map<String, String> masterInfo = info(master);
					if ("master".equals(masterInfo.get("role"))) {
						masterOffset = Long.parseLong(masterInfo.get("master_repl_offset"));
					}
				}
				replicaInfo = info(replica);
				if (masterOffset >= 0 && "slave".equals(replicaInfo.get("role"))
						&& Integer.toString(master).equals(replicaInfo.get("master_port"))
						&& "up".equals(replicaInfo.get("master_link_status"))
						&& "0".equals(replicaInfo.get("master_sync_in_progress"))
						&& Long.parseLong(replicaInfo.get("slave_repl_offset")) >= masterOffset) {
					return;
				}
			}
			catch (IllegalStateException | UncheckedIOException notYet) {
				// e.g. LOADING while the replica loads the master's data
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("the server on port " + replica + " did not replicate " + HOST + ":"
						+ master + " up to offset " + masterOffset + " within " + timeout + "; it reports "
						+ replicaInfo + ServerDirectory.logs(this.directory));
			}
			sleep(50);
		}
	}

	/** {@code INFO replication} of the server on {@code port}, as fields. */
	@SuppressWarnings("NullAway") // INFO never answers nil
	private Map<String, String> info(int port) {
		Map<String, String> fields = new HashMap<>();
		for (String line : ((String) call(port, "INFO", "replication")).split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0) {
				fields.put(line.substring(0, colon), line.substring(colon + 1));
			}
		}
		return fields;
	}

	/** A Sentinel reply entry (alternating names and values) as fields. */
	private static Map<String, String> fields(Object entry) {
		Map<String, String> fields = new HashMap<>();
		if (entry instanceof List<?> list) {
			for (int i = 0; i + 1 < list.size(); i += 2) {
				fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
			}
		}
		return fields;
	}

	private int freePortNotOurs() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = TestRedis.freePort();
			if (!this.ports.contains(port) && !this.sentinelPorts.contains(port)) {
				return port;
			}
		}
		throw new IllegalStateException("found no free port");
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
