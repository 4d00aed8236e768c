package dev.ratelimit.spring.redis;

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
import dev.ratelimit.spring.enforce.Timeouts;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/**
 * The limiter's {@link ScriptExecutor} on a Lettuce connection of its own: one connection, thread-safe, on which
 * concurrent decisions are pipelined, so there is no pool to size or to wait for.
 *
 * <p>
 * The connection is opened by {@link #connect()} as the application starts ({@link RedisConnectionLifecycle}), not
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

	private final AtomicReference<CompletableFuture<Connection>> connection = new AtomicReference<>();

	private volatile boolean closed;

	/**
	 * @param connector opens a connection ({@link StatefulRedisConnection} or {@link StatefulRedisClusterConnection})
	 * @param preloaded scripts loaded on every new connection
	 * @param timeout bound of the blocking {@link #execute}
	 * @param written the I/O thread's timer, and what it notes of the commands ({@link EventLoopTimeouts})
	 * @param onClose releases the client after the connection is closed
	 */
	public LettuceScriptExecutor(Supplier<CompletableFuture<? extends StatefulConnection<String, String>>> connector,
			List<LuaScript> preloaded, Duration timeout, EventLoopTimeouts written, Runnable onClose) {
		this.written = written;
		this.deadlines = new FairDeadlines(written, written, timeout);
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
		CompletableFuture<Connection> current = this.connection.getAndSet(null);
		if (current == null) {
			return;
		}
		if (current.isDone() && !current.isCompletedExceptionally()) {
			current.join().stateful().close();
		}
		else {
			current.thenAccept((open) -> open.stateful().closeAsync());
		}
	}

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

	@Override
	public CompletionStage<List<Long>> executeAsync(LuaScript script, List<String> keys, List<String> args) {
		String[] keyArray = keys.toArray(String[]::new);
		String[] argArray = args.toArray(String[]::new);
		return connection().thenCompose((connection) -> run(connection, script, keyArray, argArray)
			.exceptionallyCompose((ex) -> {
				if (!hasCause(ex, "READONLY")) {
					return CompletableFuture.failedFuture(ex);
				}
				// A master turned replica (a failover): Redis ran nothing; the same call goes to the new master.
				connection.stateful().closeAsync();
				return connection().thenCompose((fresh) -> run(fresh, script, keyArray, argArray));
			}));
	}

	private CompletionStage<List<Long>> run(Connection connection, LuaScript script, String[] keys, String[] args) {
		return send(connection, CommandType.EVALSHA, script.sha1(), keys, args)
			.exceptionallyCompose((ex) -> hasCause(ex, "NOSCRIPT")
					// Script cache empty (SCRIPT FLUSH, restart, failover): EVAL runs the source and caches it again.
					? send(connection, CommandType.EVAL, script.source(), keys, args)
					: CompletableFuture.failedFuture(ex));
	}

	/**
	 * {@code EVALSHA} or {@code EVAL}, as Lettuce's {@code evalsha} and {@code eval} send them, but dispatched as a
	 * command that notes when it is written: the deadlines give Redis its time from then ({@link EventLoopTimeouts}).
	 * A cluster connection routes it by its first key, as it routes those.
	 */
	@SuppressWarnings("unchecked")
	private CompletableFuture<List<Long>> send(Connection connection, CommandType type, String script, String[] keys,
			String[] args) {
		CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8).add(script)
			.add(keys.length)
			.addKeys(keys)
			.addValues(args);
		AsyncCommand<String, String, List<Object>> command = this.written
			.timed(new Command<>(type, new NestedMultiOutput<>(StringCodec.UTF8), arguments));
		// completes the command itself when a cluster connection wraps it (redirections)
		connection.stateful().dispatch(command);
		// the reply of the rate-limit scripts is a flat list of integers
		return (CompletableFuture<List<Long>>) (CompletableFuture<?>) command;
	}

	/**
	 * Opens a new connection for the next calls, to the master the Sentinels name now: for when Redis Sentinel reports
	 * a new master while the old one still accepts writes. The connection it replaces closes a moment later, once the
	 * calls in flight on it are answered: it may already be the new master's (opened after the promotion, before the
	 * announcement), and closing it at once failed those calls open.
	 */
	void reconnect() {
		CompletableFuture<Connection> current = this.connection.get();
		if (current == null || !current.isDone() || current.isCompletedExceptionally()) {
			return;
		}
		CompletableFuture<Connection> attempt = new CompletableFuture<>();
		if (this.connection.compareAndSet(current, attempt)) {
			connect(attempt);
			StatefulConnection<String, String> old = current.join().stateful();
			// a second (or the timeout, if shorter) is long enough for the answers of a healthy master
			CompletableFuture.delayedExecutor(Math.min(this.timeout.toMillis(), 1000), TimeUnit.MILLISECONDS)
				.execute(old::closeAsync);
		}
	}

	/**
	 * The open connection, or the attempt under way; a closed or failed one is replaced by a new attempt, which
	 * concurrent callers share.
	 */
	private CompletableFuture<Connection> connection() {
		while (true) {
			CompletableFuture<Connection> current = this.connection.get();
			if (current != null && usable(current)) {
				return current;
			}
			CompletableFuture<Connection> attempt = new CompletableFuture<>();
			if (this.connection.compareAndSet(current, attempt)) {
				if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
					current.join().stateful().closeAsync();
				}
				connect(attempt);
				return attempt;
			}
		}
	}

	private static boolean usable(CompletableFuture<Connection> connection) {
		if (!connection.isDone()) {
			return true;
		}
		if (connection.isCompletedExceptionally()) {
			return false;
		}
		StatefulConnection<String, String> stateful = connection.join().stateful();
		if (stateful instanceof StatefulRedisClusterConnection<?, ?> && stateful instanceof RedisChannelHandler<?, ?> handler) {
			// A cluster connection reconnects to its nodes by itself (the topology refreshes tell it where). It is not
			// "open" while the node of its default channel is down: replacing it then would load a topology from
			// before the replica's promotion and reconnect to a dead node, request after request.
			return !handler.isClosed();
		}
		return stateful.isOpen();
	}

	private void connect(CompletableFuture<Connection> attempt) {
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
		opening.thenCompose((stateful) -> {
			Connection connection = new Connection(stateful);
			CompletableFuture<?>[] loads = this.preloaded.stream()
				.map((script) -> connection.commands().scriptLoad(script.source()).toCompletableFuture())
				.toArray(CompletableFuture[]::new);
			// A failed SCRIPT LOAD (an ACL, say) costs one NOSCRIPT later, not the connection.
			return CompletableFuture.allOf(loads).handle((ignored, ex) -> connection);
		}).whenComplete((connection, ex) -> {
			if (ex != null) {
				attempt.completeExceptionally(ex);
			}
			else {
				attempt.complete(connection);
			}
		});
	}

	/** Whether Redis answered with the error {@code code} ({@code NOSCRIPT}, {@code READONLY}). */
	private static boolean hasCause(Throwable ex, String code) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null
					&& cause.getMessage().startsWith(code)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public void close() {
		this.closed = true;
		CompletableFuture<Connection> current = this.connection.get();
		try {
			if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
				current.join().stateful().close();
			}
		}
		finally {
			this.onClose.run();
		}
	}

	/** A connection and its asynchronous scripting commands, standalone or cluster alike. */
	private record Connection(StatefulConnection<String, String> stateful,
			RedisScriptingAsyncCommands<String, String> commands) {

		Connection(StatefulConnection<String, String> stateful) {
			this(stateful, (stateful instanceof StatefulRedisClusterConnection<String, String> cluster)
					? cluster.async() : ((StatefulRedisConnection<String, String>) stateful).async());
		}

	}

}
