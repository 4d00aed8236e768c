package dev.ratelimit.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

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
 * {@code ratelimit.test.redis} forces a choice: {@code docker}, {@code path} or {@code embedded}.
 */
public final class TestRedis implements AutoCloseable {

	private static final String EMBEDDED_BINARY = "redis-server-6.2.6-v5-linux-amd64";

	private static TestRedis shared;

	private final GenericContainer<?> container;

	private final Path binary;

	private final int port;

	private Process process;

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
		String choice = System.getProperty("ratelimit.test.redis", "auto").toLowerCase(Locale.ROOT);
		if (choice.equals("docker") || (choice.equals("auto") && dockerAvailable())) {
			GenericContainer<?> container = new GenericContainer<>("redis:7.2").withExposedPorts(6379);
			container.start();
			return new TestRedis(container);
		}
		Path binary = (choice.equals("embedded") || (choice.equals("auto") && !onPath())) ? embeddedBinary()
				: Path.of("redis-server");
		return new TestRedis(binary, freePort());
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
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host(), port()), 1000);
			socket.setSoTimeout(2000);
			StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
			for (String word : words) {
				request.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word).append("\r\n");
			}
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			InputStream in = socket.getInputStream();
			StringBuilder line = new StringBuilder();
			for (int ch = in.read(); ch != -1 && ch != '\r'; ch = in.read()) {
				line.append((char) ch);
			}
			return line.toString();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
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

	private synchronized void startProcess() {
		List<String> command = List.of(this.binary.toString(), "--port", Integer.toString(this.port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning");
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not start " + command, ex);
		}
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (true) {
			try {
				if ("+PONG".equals(command("PING"))) {
					return;
				}
			}
			catch (UncheckedIOException notYet) {
				// still starting
			}
			if (!this.process.isAlive() || System.nanoTime() > deadline) {
				this.process.destroyForcibly();
				throw new IllegalStateException("redis-server did not start on port " + this.port + ": " + command);
			}
			sleepBriefly();
		}
	}

	private void signal(String name) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(this.process.pid())).start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + name + " failed for redis-server " + this.process.pid());
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

	/** The Linux redis-server binary inside the embedded-redis jar, copied out to an executable temporary file. */
	private static synchronized Path embeddedBinary() {
		try (InputStream in = TestRedis.class.getClassLoader().getResourceAsStream(EMBEDDED_BINARY)) {
			if (in == null) {
				throw new IllegalStateException("no redis-server on the PATH and " + EMBEDDED_BINARY
						+ " not on the classpath (com.github.codemonstur:embedded-redis)");
			}
			Path file = Files.createTempFile("redis-server-", "");
			Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
			Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
			file.toFile().deleteOnExit();
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void waitFor(Process process) {
		try {
			process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleepBriefly() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
