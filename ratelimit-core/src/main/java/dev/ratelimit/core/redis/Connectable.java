package dev.ratelimit.core.redis;

import java.util.concurrent.CompletableFuture;

/**
 * A client of the limiter whose connections open and close with the application (in the Spring Boot starter, its RedisConnectionLifecycle),
 * not when it is built: building the beans then needs no Redis, and the application's lifecycle says when the
 * connection opens (before the web server takes requests) and closes (after graceful shutdown).
 */
public interface Connectable {

	/**
	 * Opens the connection and loads the scripts, unless they are already.
	 * @return completes once they are, or exceptionally with why the connection could not be opened
	 */
	CompletableFuture<Void> connect();

	/** Closes the connections; the next call or {@link #connect()} opens them again. */
	void disconnect();

}
