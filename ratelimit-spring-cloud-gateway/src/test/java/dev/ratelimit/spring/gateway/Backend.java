package dev.ratelimit.spring.gateway;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The backend the test gateways proxy to: a real HTTP server on a free port that counts the requests reaching it by
 * their first path segment. A path under {@code /held/} waits until {@link #release()} (so that calls are in flight
 * together), one under {@code /error/} or ending in {@code /fail} answers 500, every other 200.
 */
final class Backend implements AutoCloseable {

	private final HttpServer server;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final AtomicInteger mostInFlight = new AtomicInteger();

	private volatile CountDownLatch held = new CountDownLatch(1);

	Backend() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
		this.server.setExecutor(this.threads);
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	String uri() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	/** How many requests whose path starts with {@code /segment/} reached the backend. */
	int hits(String segment) {
		AtomicInteger count = this.hits.get(segment);
		return (count != null) ? count.get() : 0;
	}

	/** The most requests of {@code /held/} in flight at once since the last {@link #reset()}. */
	int mostInFlight() {
		return this.mostInFlight.get();
	}

	int inFlight() {
		return this.inFlight.get();
	}

	/** Lets the held requests answer, and holds the next ones again. */
	void release() {
		CountDownLatch released = this.held;
		this.held = new CountDownLatch(1);
		released.countDown();
	}

	void reset() {
		this.mostInFlight.set(0);
	}

	private void handle(HttpExchange exchange) throws IOException {
		String path = exchange.getRequestURI().getPath();
		String segment = path.split("/").length > 1 ? path.split("/")[1] : "";
		this.hits.computeIfAbsent(segment, (key) -> new AtomicInteger()).incrementAndGet();
		int status = 200;
		if (path.startsWith("/held/")) {
			CountDownLatch latch = this.held;
			this.mostInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
			try {
				latch.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.inFlight.decrementAndGet();
			}
		}
		else if (path.startsWith("/error/") || path.endsWith("/fail")) {
			status = 500;
		}
		byte[] body = ("backend " + path).getBytes(StandardCharsets.UTF_8);
		// a connection per request: the JDK's server drops idle connections on its own schedule, and a gateway's pool
		// reusing one it dropped would make a test wait on the network rather than on the limiter
		exchange.getResponseHeaders().set("Connection", "close");
		exchange.sendResponseHeaders(status, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	@Override
	public void close() {
		this.held.countDown();
		this.server.stop(0);
		this.threads.shutdownNow();
	}

}
