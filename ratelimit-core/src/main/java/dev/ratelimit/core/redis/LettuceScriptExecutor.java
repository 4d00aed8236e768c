package dev.ratelimit.core.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.ScriptExecutor;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ScriptExecutor} on a Lettuce connection of its own: one connection, thread-safe, on which concurrent
 * decisions are pipelined, so there is no pool to size or to wait for. The Spring Boot starter's limiter uses it for
 * its own Lettuce client; without Spring, see {@code docs/WITHOUT-SPRING.md}.
 *
 * <p>
 * The connection is opened by {@link #connect()} as the application starts (the starter calls it as the application starts), not
 * when the executor is built, and, whenever it is found closed (Redis restarted, failed over, or is down), opened
 * again by the request that finds it so (one attempt at a time, shared by concurrent requests). A request
 * therefore waits at most its own deadline, never a reconnect back-off, and is decided by a restarted Redis from the
 * first request on. Each new connection loads the scripts ({@code SCRIPT LOAD}), so that the first decisions after a
 * restart do not pay for {@code NOSCRIPT}; a {@code NOSCRIPT} that still happens ({@code SCRIPT FLUSH}) is answered
 * on the same call with {@code EVAL}.
 */
public final class LettuceScriptExecutor implements ScriptExecutor, Timeouts.Judged, Connectable, AutoCloseable {

	private final Supplier<CompletableFuture<? extends StatefulConnection<String, String>>> connector;

	private final List<LuaScript> preloaded;

	private final Duration timeout;

	private final Runnable onClose;

	private final EventLoopTimeouts written;

	private final FairDeadlines deadlines;

	private final LettuceScriptCommands commands;

	private final AtomicReference<@Nullable CompletableFuture<StatefulConnection<String, String>>> connection;

	private volatile boolean closed;

	/**
	 * Opens nothing yet: {@link #connect()} opens the first connection (or the first call that needs it).
	 * @param connector opens a connection ({@link StatefulRedisConnection} or {@link StatefulRedisClusterConnection},
	 * with the {@code UTF-8} string codec), each time one is needed; a connection it fails to open fails the calls
	 * that waited for it, and the next call asks again
	 * @param preloaded scripts loaded on every new connection ({@code SCRIPT LOAD}); may be empty
	 * @param timeout bound of the blocking {@link #execute}, and the base of the deadlines ({@link FairDeadlines})
	 * @param written the I/O thread's timer, and what it notes of the commands ({@link EventLoopTimeouts}); the
	 * client's resources should have it as their {@code NettyCustomizer}
	 * @param onClose releases the client (shuts it down) after {@link #close} has closed the connection
	 */
	public LettuceScriptExecutor(Supplier<CompletableFuture<? extends StatefulConnection<String, String>>> connector,
			List<LuaScript> preloaded, Duration timeout, EventLoopTimeouts written, Runnable onClose) {
		this.written = written;
		this.deadlines = new FairDeadlines(written, written, timeout);
		this.commands = new LettuceScriptCommands(written);
		this.connection = new AtomicReference<>();
		this.connector = connector;
		this.preloaded = List.copyOf(preloaded);
		this.timeout = timeout;
		this.onClose = onClose;
	}

	/** The requests' deadlines, judged on the I/O thread that reads this executor's replies ({@link FairDeadlines}). */
	@Override
	public Timeouts deadlines() {
		return (onTimeout, delayNanos) -> this.deadlines.schedule(() -> {
			this.written.silent();
			onTimeout.run();
		}, delayNanos);
	}

	/** Opens the connection and loads the scripts, or joins the attempt under way. */
	@Override
	public CompletableFuture<Void> connect() {
		return connection().thenApply((open) -> null);
	}

	/**
	 * Closes the connection (the application stops); a call after this opens a new one, as after a restart of Redis.
	 * An attempt still under way is closed once it opens.
	 */
	@Override
	public void disconnect() {
		CompletableFuture<StatefulConnection<String, String>> current = this.connection.getAndSet(null);
		if (current == null) {
			return;
		}
		if (current.isDone() && !current.isCompletedExceptionally()) {
			current.join().close();
		}
		else {
			current.thenAccept(StatefulConnection::closeAsync);
		}
	}

	/**
	 * Runs {@code script}, waiting for its reply at most the timeout.
	 * @throws RedisCommandTimeoutException no reply within the timeout
	 * @throws RuntimeException Lettuce's exception when Redis cannot be reached or answers an error; an
	 * {@link IllegalStateException} when interrupted (the interrupt flag is set again) or once closed
	 */
	@Override
	public List<Long> execute(LuaScript script, List<String> keys, List<String> args) {
		try {
			return executeAsync(script, keys, args).toCompletableFuture()
				.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new RedisCommandTimeoutException("Redis did not decide within " + this.timeout.toMillis() + " ms");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException(ex.getCause());
		}
	}

	/**
	 * Sends {@code script} on the connection, opening one first if it is closed; a {@code READONLY} answer (the
	 * master became a replica) sends it once more, on a new connection. It does not bound the wait: the caller does,
	 * with {@link #deadlines()}, while Lettuce's own command timeout ({@code TimeoutOptions}) drops what Redis never
	 * answers.
	 */
	@Override
	public CompletionStage<List<Long>> executeAsync(LuaScript script, List<String> keys, List<String> args) {
		String[] keyArray = keys.toArray(String[]::new);
		String[] argArray = args.toArray(String[]::new);
		return connection().thenCompose((connection) -> this.commands.run(connection, script, keyArray, argArray)
			.exceptionallyCompose((ex) -> {
				if (!LettuceScriptCommands.hasCause(ex, "READONLY")) {
					return CompletableFuture.failedFuture(ex);
				}
				// A master turned replica (a failover): Redis ran nothing; the same call goes to the new master.
				connection.closeAsync();
				return connection().thenCompose((fresh) -> this.commands.run(fresh, script, keyArray, argArray));
			}));
	}

	/**
	 * Opens a new connection for the next calls, to the master the Sentinels name now: for when Redis Sentinel reports
	 * a new master while the old one still accepts writes. The connection it replaces closes a moment later, once the
	 * calls in flight on it are answered: it may already be the new master's (opened after the promotion, before the
	 * announcement), and closing it at once failed those calls open. Does nothing while no connection is open. Never
	 * blocks; called from Lettuce's threads (the Sentinels' {@code +switch-master}).
	 */
	public void reconnect() {
		CompletableFuture<StatefulConnection<String, String>> current = this.connection.get();
		if (current == null || !current.isDone() || current.isCompletedExceptionally()) {
			return;
		}
		CompletableFuture<StatefulConnection<String, String>> attempt = new CompletableFuture<>();
		if (this.connection.compareAndSet(current, attempt)) {
			connect(attempt);
			StatefulConnection<String, String> old = current.join();
			// a second (or the timeout, if shorter) is long enough for the answers of a healthy master
			CompletableFuture.delayedExecutor(Math.min(this.timeout.toMillis(), 1000), TimeUnit.MILLISECONDS)
				.execute(old::closeAsync);
		}
	}

	/**
	 * The open connection, or the attempt under way; a closed or failed one is replaced by a new attempt, which
	 * concurrent callers share.
	 */
	private CompletableFuture<StatefulConnection<String, String>> connection() {
		while (true) {
			CompletableFuture<StatefulConnection<String, String>> current = this.connection.get();
			if (current != null && usable(current)) {
				return current;
			}
			CompletableFuture<StatefulConnection<String, String>> attempt = new CompletableFuture<>();
			if (this.connection.compareAndSet(current, attempt)) {
				if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
					current.join().closeAsync();
				}
				connect(attempt);
				return attempt;
			}
		}
	}

	private static boolean usable(CompletableFuture<StatefulConnection<String, String>> connection) {
		return !connection.isDone()
				|| (!connection.isCompletedExceptionally() && LettuceScriptCommands.usable(connection.join()));
	}

	private void connect(CompletableFuture<StatefulConnection<String, String>> attempt) {
		if (this.closed) {
			attempt.completeExceptionally(new IllegalStateException("The rate limiter's Redis client is closed"));
			return;
		}
		CompletableFuture<? extends StatefulConnection<String, String>> opening;
		try {
			opening = this.connector.get();
		}
		catch (RuntimeException ex) {
			attempt.completeExceptionally(ex);
			return;
		}
		opening
			.thenCompose((opened) -> LettuceScriptCommands.load(opened, this.preloaded).thenApply((loaded) -> opened))
			.whenComplete((connection, ex) -> {
				if (ex != null) {
					attempt.completeExceptionally(ex);
				}
				else {
					attempt.complete(connection);
				}
			});
	}

	/** Closes the connection, then runs the {@code onClose} given to the constructor; later calls fail. */
	@Override
	public void close() {
		this.closed = true;
		CompletableFuture<StatefulConnection<String, String>> current = this.connection.get();
		try {
			if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
				current.join().close();
			}
		}
		finally {
			this.onClose.run();
		}
	}

}
