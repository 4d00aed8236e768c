package dev.ratelimit.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * A real Redis server for tests, started for the caller and stopped by {@link #close()} (and, as a last resort, when
 * the JVM exits), so tests never depend on a server someone else started.
 *
 * <p>
 * Where a Docker engine is available it runs {@code redis:7.2} through Testcontainers. Otherwise it starts a
 * {@code redis-server} process on a free loopback port: the one on the {@code PATH}, or else the Linux binary that
 * the {@code com.github.codemonstur:embedded-redis} artifact ships (Redis 6.2). The system property
 * {@code test.redis} forces a choice: {@code docker}, {@code path} or {@code embedded}.
 *
 * @see TestRedisCluster
 */
public final class TestRedis implements AutoCloseable {

	private static final String EMBEDDED_BINARY = "redis-server-6.2.6-v5-linux-amd64";

	private static @Nullable TestRedis shared;

	private static @Nullable Path embeddedBinary;

	private final @Nullable GenericContainer<?> container;

	private final @Nullable Path binary;

	private final int port;

	private @Nullable Process process;

	private TestRedis(GenericContainer<?> container) {
		this.container = container;
		this.binary = null;
		this.port = container.getMappedPort(6379);
	}

	private TestRedis(Path binary, int port) {
		this.container = null;
		this.binary = binary;
		this.port = port;
		startProcess();
		Runtime.getRuntime().addShutdownHook(new Thread(this::close));
	}

	/** A new server, owned by the caller. */
	public static TestRedis start() {
		String choice = choice();
		if (choice.equals("docker") || (choice.equals("auto") && dockerAvailable())) {
			GenericContainer<?> container = new GenericContainer<>("redis:7.2").withExposedPorts(6379);
			container.start();
			return new TestRedis(container);
		}
		return new TestRedis(localBinary(choice), freePort());
	}

	/** The system property {@code test.redis}: {@code docker}, {@code path}, {@code embedded} or {@code auto}. */
	static String choice() {
		return System.getProperty("test.redis", "auto").toLowerCase(Locale.ROOT);
	}

	/**
	 * The {@code redis-server} binary to run as a process: the embedded-redis one if {@code choice} is
	 * {@code embedded}, or if it is anything but {@code path} and none is on the {@code PATH}; else the {@code PATH}'s.
	 */
	static Path localBinary(String choice) {
		return (choice.equals("embedded") || (!choice.equals("path") && !onPath())) ? embeddedBinary()
				: Path.of("redis-server");
	}

	/** One server for the whole test JVM, started on first use. Tests sharing it must use distinct keys. */
	public static synchronized TestRedis shared() {
		if (shared == null) {
			shared = start();
		}
		return shared;
	}

	public String host() {
		return (this.container != null) ? this.container.getHost() : "127.0.0.1";
	}

	public int port() {
		return this.port;
	}

	/** {@code redis://host:port}, for {@code spring.data.redis.url}. */
	public String url() {
		return "redis://" + host() + ":" + port();
	}

	/** Sends one command in RESP and returns the raw reply's first line, e.g. {@code "+OK"}. */
	public String command(String... words) {
		return Resp.firstLine(host(), port(), words);
	}

	/** Freezes the server: it keeps its connections but answers nothing until {@link #resume()}. */
	public void pause() {
		if (this.container != null) {
			DockerClientFactory.instance().client().pauseContainerCmd(this.container.getContainerId()).exec();
		}
		else {
			signal("STOP");
		}
	}

	/** Undoes {@link #pause()}. */
	public void resume() {
		if (this.container != null) {
			DockerClientFactory.instance().client().unpauseContainerCmd(this.container.getContainerId()).exec();
		}
		else {
			signal("CONT");
		}
	}

	/** Kills the server process (connections are refused) until {@link #restart()}; a container is paused instead. */
	@SuppressWarnings("NullAway") // a server without a container has a process
	public void stop() {
		if (this.container != null) {
			pause();
			return;
		}
		this.process.destroyForcibly();
		waitFor(this.process);
	}

	/** Starts the server again on the same port, empty (a process) or where it was (a container). */
	public void restart() {
		if (this.container != null) {
			resume();
			return;
		}
		startProcess();
	}

	@Override
	public synchronized void close() {
		if (this.container != null) {
			this.container.stop();
		}
		else if (this.process != null && this.process.isAlive()) {
			this.process.destroyForcibly();
			waitFor(this.process);
		}
	}

	@SuppressWarnings("NullAway") // a server without a container has a binary
	private synchronized void startProcess() {
		this.process = launch(this.binary, this.port, List.of(), ProcessBuilder.Redirect.DISCARD);
	}

	/**
	 * Starts {@code binary} on {@code 127.0.0.1:port}, without persistence, with {@code extraArguments} appended,
	 * and waits (at most 10 s) until it answers {@code PING}.
	 * @throws IllegalStateException if it exits or does not answer in time; the process is then killed
	 */
	static Process launch(Path binary, int port, List<String> extraArguments, ProcessBuilder.Redirect output) {
		List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", Integer.toString(port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"));
		command.addAll(extraArguments);
		Process process;
		try {
			process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not start " + command, ex);
		}
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (true) {
			try {
				if ("+PONG".equals(Resp.firstLine("127.0.0.1", port, "PING"))) {
					requireServerName(port, process);
					return process;
				}
			}
			catch (UncheckedIOException notYet) {
				// still starting
			}
			if (!process.isAlive() || System.nanoTime() > deadline) {
				process.destroyForcibly();
				waitFor(process);
				throw new IllegalStateException("redis-server did not start on port " + port + ": " + command);
			}
			sleepBriefly();
		}
	}

	/**
	 * With {@code -Dtest.redis.server-name=valkey} (CI's run on Valkey), fails loudly unless the server started says
	 * so in {@code INFO server}: Valkey reports {@code redis_version:7.2.4}, so only its {@code server_name} tells a
	 * run on Valkey from one that silently ran Redis.
	 */
	private static void requireServerName(int port, Process process) {
		String expected = System.getProperty("test.redis.server-name");
		if (expected == null || expected.isBlank()) {
			return;
		}
		Object info = Resp.call("127.0.0.1", port, "INFO", "server");
		if (!String.valueOf(info).contains("server_name:" + expected)) {
			process.destroyForcibly();
			waitFor(process);
			throw new IllegalStateException("test.redis.server-name=" + expected + ", but the redis-server on the PATH"
					+ " is another server: " + String.valueOf(info).lines().filter((line) -> line.startsWith("redis_")
							|| line.startsWith("server_name")).toList());
		}
	}

	@SuppressWarnings("NullAway") // a server without a container has a process
	private void signal(String name) {
		signal(this.process, name);
	}

	/** Sends the signal {@code name} ({@code STOP}, {@code CONT}) to {@code process}. */
	static void signal(Process process, String name) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + name + " failed for redis-server " + process.pid());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static boolean dockerAvailable() {
		// Asking Testcontainers where there is plainly no engine logs a page of errors; look for a hint of one first.
		String home = System.getProperty("user.home");
		boolean hint = System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"))
				|| Files.exists(Path.of(home, ".testcontainers.properties"))
				|| Files.exists(Path.of(home, ".docker", "run", "docker.sock"));
		if (!hint) {
			return false;
		}
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private static boolean onPath() {
		try {
			Process probe = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
			probe.getInputStream().readAllBytes();
			return probe.waitFor() == 0;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * The Linux redis-server binary inside the embedded-redis jar, copied out (once per JVM) to an executable
	 * temporary file.
	 */
	private static synchronized Path embeddedBinary() {
		if (embeddedBinary != null && Files.isExecutable(embeddedBinary)) {
			return embeddedBinary;
		}
		try (InputStream in = TestRedis.class.getClassLoader().getResourceAsStream(EMBEDDED_BINARY)) {
			if (in == null) {
				throw new IllegalStateException("no redis-server on the PATH and " + EMBEDDED_BINARY
						+ " not on the classpath (com.github.codemonstur:embedded-redis)");
			}
			Path file = Files.createTempFile("redis-server-", "");
			Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
			Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
			file.toFile().deleteOnExit();
			embeddedBinary = file;
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static void waitFor(Process process) {
		try {
			process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static void sleepBriefly() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
