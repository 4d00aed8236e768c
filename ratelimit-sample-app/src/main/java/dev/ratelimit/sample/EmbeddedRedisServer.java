package dev.ratelimit.sample;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import redis.embedded.core.ExecutableProvider;

/**
 * A real {@code redis-server} process on a free loopback port: the binary that
 * {@code com.github.codemonstur:embedded-redis} ships for this platform (Redis 6.2 on Linux and macOS), so the
 * sample runs on a machine that has nothing but a JDK. Not persistent: no RDB snapshots, no append-only file.
 *
 * <p>
 * Only the library's binary is used, not its process handling: that one waits for a log line without a time limit
 * and stops the server from a JVM shutdown hook of its own, which races with the application's orderly shutdown.
 */
final class EmbeddedRedisServer {

	static final String HOST = "127.0.0.1";

	/** Tries before giving up: a free port can be taken by someone else between probing it and binding it. */
	private static final int ATTEMPTS = 3;

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);

	private final Process process;

	private final int port;

	private EmbeddedRedisServer(Process process, int port) {
		this.process = process;
		this.port = port;
	}

	/**
	 * Starts a server and waits, at most 15 s, until it answers {@code PING}.
	 * @throws IllegalStateException when no server could be started (no binary for this platform, or it did not
	 * come up)
	 */
	static EmbeddedRedisServer start() {
		File binary;
		try {
			// Copies the binary for this OS and architecture out of the jar, to a file deleted at JVM exit.
			binary = ExecutableProvider.newJarResourceProvider().get();
		}
		catch (IOException | RuntimeException ex) {
			throw new IllegalStateException("No embedded redis-server for this platform; set spring.data.redis.url "
					+ "(or REDIS_URL) to a Redis server of your own", ex);
		}
		RuntimeException last = null;
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			try {
				return start(binary, freePort());
			}
			catch (RuntimeException ex) {
				last = ex;
			}
		}
		throw new IllegalStateException("Could not start the embedded redis-server; set spring.data.redis.url "
				+ "(or REDIS_URL) to a Redis server of your own", last);
	}

	private static EmbeddedRedisServer start(File binary, int port) {
		List<String> command = List.of(binary.getAbsolutePath(), "--port", Integer.toString(port), "--bind", HOST,
				"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning");
		Process process;
		try {
			// Output discarded rather than piped: a pipe nobody reads would block the server once it is full.
			process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + binary, ex);
		}
		EmbeddedRedisServer server = new EmbeddedRedisServer(process, port);
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (!server.answersPing()) {
			if (!process.isAlive() || System.nanoTime() > deadline) {
				server.stop();
				throw new IllegalStateException("redis-server did not come up on " + HOST + ":" + port);
			}
			pause();
		}
		return server;
	}

	int port() {
		return this.port;
	}

	boolean isActive() {
		return this.process.isAlive();
	}

	/** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for its process to end. */
	synchronized void stop() {
		if (!this.process.isAlive()) {
			return;
		}
		this.process.destroy();
		try {
			if (!this.process.waitFor(SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				this.process.destroyForcibly().waitFor(SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	private boolean answersPing() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, this.port), 500);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] reply = in.readNBytes(5);
			return new String(reply, StandardCharsets.US_ASCII).equals("+PONG");
		}
		catch (IOException notYet) {
			return false;
		}
	}

	private static void pause() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port on " + HOST, ex);
		}
	}

}
