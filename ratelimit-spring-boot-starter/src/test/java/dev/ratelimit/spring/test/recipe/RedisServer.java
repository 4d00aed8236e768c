package dev.ratelimit.spring.test.recipe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;

/** The redis-server process of docs/TESTING.md. */
// snippet:start redis-server
final class RedisServer implements AutoCloseable {

	private final Process process;

	private final int port;

	private RedisServer(Process process, int port) {
		this.process = process;
		this.port = port;
	}

	/** A redis-server of the PATH on a free port, with nothing saved to disk; ready when it returns. */
	static RedisServer start() {
		try {
			int port;
			try (ServerSocket free = new ServerSocket(0)) {
				port = free.getLocalPort();
			}
			Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind",
					"127.0.0.1", "--save", "", "--appendonly", "no")
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			for (int attempt = 0; attempt < 200 && process.isAlive(); attempt++) {
				try (Socket ready = new Socket("127.0.0.1", port)) {
					return new RedisServer(process, port);
				}
				catch (ConnectException notYet) {
					Thread.sleep(50);
				}
			}
			process.destroyForcibly();
			throw new IllegalStateException("redis-server did not start on port " + port);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	String url() {
		return "redis://127.0.0.1:" + this.port;
	}

	@Override
	public void close() {
		this.process.destroy();
	}

}
// snippet:end redis-server
