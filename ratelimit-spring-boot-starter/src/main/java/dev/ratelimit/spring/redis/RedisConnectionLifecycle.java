package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.ratelimit.core.redis.Connectable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Opens the limiter's connection to Redis as the application starts, before its web server takes requests, and closes
 * it as the application stops, after the web server's graceful shutdown has let the last requests finish.
 *
 * <p>
 * The first request should find the connection open and the scripts loaded (a connection opened by that request cost
 * it 0.6 s once), so {@link #start()} waits for them, at most the connect timeout. A Redis that is down at startup is
 * no reason not to start: the failure is logged, and requests follow their failure policy until Redis answers.
 */
public final class RedisConnectionLifecycle implements SmartLifecycle {

	/**
	 * Below the phases of Spring Boot's web server ({@code SmartLifecycle.DEFAULT_PHASE - 2048}) and of its graceful
	 * shutdown ({@code DEFAULT_PHASE - 1024}): started before both, stopped after both.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log logger = LogFactory.getLog(RedisConnectionLifecycle.class);

	private final Supplier<?> client;

	private final Duration wait;

	private final String source;

	/** The client {@link #start()} connected, which {@link #stop()} disconnects; {@code null} for none. */
	private volatile @Nullable Connectable connected;

	private volatile boolean running;

	/**
	 * @param client the limiter's client, looked up when the application starts; one that is not {@link Connectable}
	 * (an application's own) is left alone
	 * @param wait how long {@link #start()} waits for the connection: the connect timeout
	 * @param source what configured the Redis, for the message of a failed connection
	 */
	public RedisConnectionLifecycle(Supplier<?> client, Duration wait, String source) {
		this.client = client;
		this.wait = wait;
		this.source = source;
	}

	@Override
	public void start() {
		this.running = true;
		if (this.client.get() instanceof Connectable connectable) {
			this.connected = connectable;
			Throwable failure = await(connectable);
			if (failure != null) {
				logger.warn("The rate limiter could not connect to Redis (" + this.source + ") at startup; limits"
						+ " follow their failure policy until it answers: " + failure + rootCause(failure));
			}
		}
	}

	@Override
	public void stop() {
		try {
			Connectable connectable = this.connected;
			if (connectable != null) {
				connectable.disconnect();
			}
		}
		finally {
			this.running = false;
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private @Nullable Throwable await(Connectable connectable) {
		try {
			connectable.connect().get(this.wait.toMillis(), TimeUnit.MILLISECONDS);
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return ex;
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		catch (TimeoutException ex) {
			return new TimeoutException("no connection within " + this.wait.toMillis() + " ms");
		}
	}

	private static String rootCause(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return (root != failure) ? " (cause: " + root + ")" : "";
	}

}
