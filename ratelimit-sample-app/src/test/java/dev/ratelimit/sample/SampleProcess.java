package dev.ratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged sample application ({@code java -jar} of the repackaged jar) as a real process, for the end-to-end
 * tests. Its output goes to a file under {@code target/e2e-logs}, quoted in failure messages. Every wait is bounded,
 * and {@link #close()} ends the process and anything it started; a JVM shutdown hook does the same if the test JVM
 * stops first.
 */
final class SampleProcess implements AutoCloseable {

	/** Bound of every wait for the application: generous, because a loaded 2-core machine starts Spring slowly. */
	static final Duration TIMEOUT = Duration.ofSeconds(90);

	private static final HttpClient HTTP = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	private final String name;

	private final Process process;

	private final Path log;

	private final int port;

	private final Thread reaper = new Thread(this::close, "sample-process-reaper");

	private SampleProcess(String name, Process process, Path log, int port) {
		this.name = name;
		this.process = process;
		this.log = log;
		this.port = port;
		Runtime.getRuntime().addShutdownHook(this.reaper);
	}

	/**
	 * Starts the web application on a free port.
	 * @param redisUrl passed as {@code --spring.data.redis.url}; the limiter's timeout is 10 s
	 */
	static SampleProcess web(String name, String redisUrl) {
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		return webWith(name, "--spring.data.redis.url=" + redisUrl, "--ratelimit.redis.timeout=10s");
	}

	/** Starts the web application on a free port with {@code args}. */
	static SampleProcess webWith(String name, String... args) {
		int port = freePort();
		List<String> all = new ArrayList<>(List.of("--server.port=" + port));
		all.addAll(List.of(args));
		return launch(name, Map.of(), port, all.toArray(String[]::new));
	}

	/**
	 * Starts the application with {@code args}.
	 * @param environment variables set for it, on top of this JVM's without any Redis settings
	 */
	static SampleProcess launch(String name, Map<String, String> environment, String... args) {
		return launch(name, environment, -1, args);
	}

	private static SampleProcess launch(String name, Map<String, String> environment, int port, String... args) {
		Path jar = jar();
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				// A quicker start on small machines: the processes live for seconds, peak performance does not matter.
				"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar.toString()));
		command.addAll(List.of(args));
		return start(name, new ProcessBuilder(command), environment, port);
	}

	/**
	 * Runs {@code commandLine} as a user types it (bash, in {@code directory}); a single command, so that bash runs it
	 * in its own place and the process is the application itself.
	 * @param port the port the command makes the application listen on
	 */
	static SampleProcess shell(String name, Path directory, String commandLine, int port) {
		return start(name, new ProcessBuilder("bash", "-c", commandLine).directory(directory.toFile()), Map.of(), port);
	}

	/** The repackaged jar that 'package' built (the failsafe plugin's sample.jar). */
	static Path jar() {
		Path jar = Path.of(System.getProperty("sample.jar", "target/ratelimit-sample-app-0.1.0-SNAPSHOT.jar"));
		if (!Files.isRegularFile(jar)) {
			throw new IllegalStateException(jar + " is missing: run the tests with 'mvn verify', after 'package'");
		}
		return jar.toAbsolutePath();
	}

	private static SampleProcess start(String name, ProcessBuilder builder, Map<String, String> environment, int port) {
		try {
			Path logs = Files.createDirectories(Path.of(System.getProperty("sample.logs", "target/e2e-logs")));
			Path log = logs.resolve(name + ".log");
			builder.redirectErrorStream(true).redirectOutput(log.toFile());
			// Only what the test passes decides which Redis the application uses.
			builder.environment().keySet().removeIf((key) -> key.equals("REDIS_URL") || key.startsWith("SPRING_DATA_REDIS"));
			builder.environment().putAll(environment);
			return new SampleProcess(name, builder.start(), log, port);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + builder.command(), ex);
		}
	}

	int port() {
		return this.port;
	}

	/** Waits until {@code GET /} answers 200. */
	SampleProcess awaitReady() {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		HttpRequest probe = HttpRequest.newBuilder(uri("/")).timeout(Duration.ofSeconds(2)).build();
		while (true) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(this.name + " exited with " + this.process.exitValue() + ":\n" + output());
			}
			try {
				if (HTTP.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
					return this;
				}
			}
			catch (IOException notYet) {
				// not listening yet
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(this.name + " not ready within " + TIMEOUT + ":\n" + output());
			}
			pause();
		}
	}

	/** Waits for the process to exit by itself and returns its exit code; kills it when it takes too long. */
	int awaitExit() {
		try {
			if (!this.process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				close();
				throw new IllegalStateException(this.name + " did not exit within " + TIMEOUT + ":\n" + output());
			}
			return this.process.exitValue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** The process itself: its pid, and what it runs. */
	ProcessHandle handle() {
		return this.process.toHandle();
	}

	/** The processes this one started that are still running (an embedded redis-server would be one). */
	List<ProcessHandle> runningDescendants() {
		return this.process.descendants().filter(ProcessHandle::isAlive).toList();
	}

	URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	/** What the process wrote to standard output and error so far. */
	String output() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			return "(no output: " + ex + ")";
		}
	}

	/** Kills the process at once (SIGKILL), as a crash would: nothing of it runs after. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
	}

	/** Ends the process (SIGTERM, then SIGKILL) and every process it started. */
	@Override
	public void close() {
		List<ProcessHandle> descendants = this.process.descendants().toList();
		if (this.process.isAlive()) {
			this.process.destroy();
			try {
				if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
					this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				this.process.destroyForcibly();
				Thread.currentThread().interrupt();
			}
		}
		descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
		try {
			Runtime.getRuntime().removeShutdownHook(this.reaper);
		}
		catch (IllegalStateException shuttingDown) {
			// called from the hook itself
		}
	}

	@Override
	public String toString() {
		return this.name;
	}

	/** A loopback port that nothing listened on a moment ago. */
	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void pause() {
		try {
			Thread.sleep(100);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
