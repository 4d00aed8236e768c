package dev.ratelimit.core.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.ratelimit.core.LuaScript;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
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
 * The commands {@link LettuceScriptExecutor} sends, on a standalone or a cluster connection alike: {@code EVALSHA},
 * with {@code EVAL} when Redis answers {@code NOSCRIPT}, built by hand so that each notes when it is written
 * ({@link EventLoopTimeouts}), {@code SCRIPT LOAD} on a new connection; and what the replies and the connection's
 * state tell it.
 */
final class LettuceScriptCommands {

	private final EventLoopTimeouts written;

	/** @param written notes when the I/O thread writes each command and when Redis answers it */
	LettuceScriptCommands(EventLoopTimeouts written) {
		this.written = written;
	}

	/**
	 * Runs {@code script} with {@code EVALSHA}, and once more with {@code EVAL} (which caches it again) when Redis's
	 * script cache has lost it ({@code SCRIPT FLUSH}, restart, failover).
	 * @return the script's reply, a flat list of integers, or a stage failed with Lettuce's exception
	 */
	CompletionStage<List<Long>> run(StatefulConnection<String, String> connection, LuaScript script, String[] keys,
			String[] args) {
		return send(connection, CommandType.EVALSHA, script.sha1(), keys, args)
			.exceptionallyCompose((ex) -> hasCause(ex, "NOSCRIPT")
					? send(connection, CommandType.EVAL, script.source(), keys, args)
					: CompletableFuture.failedFuture(ex));
	}

	/**
	 * {@code EVALSHA} or {@code EVAL}, as Lettuce's {@code evalsha} and {@code eval} send them, but dispatched as a
	 * command that notes when it is written: the deadlines give Redis its time from then ({@link EventLoopTimeouts}).
	 * A cluster connection routes it by its first key, as it routes those.
	 */
	@SuppressWarnings("unchecked")
	private CompletableFuture<List<Long>> send(StatefulConnection<String, String> connection, CommandType type,
			String script, String[] keys, String[] args) {
		CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8).add(script)
			.add(keys.length)
			.addKeys(keys)
			.addValues(args);
		AsyncCommand<String, String, List<Object>> command = this.written
			.timed(new Command<>(type, new NestedMultiOutput<>(StringCodec.UTF8), arguments));
		// completes the command itself when a cluster connection wraps it (redirections)
		connection.dispatch(command);
		// the reply of the rate-limit scripts is a flat list of integers
		return (CompletableFuture<List<Long>>) (CompletableFuture<?>) command;
	}

	/**
	 * Loads {@code scripts} into the cache of a new connection's Redis ({@code SCRIPT LOAD}), so that the first
	 * decisions after a restart do not pay for {@code NOSCRIPT}.
	 * @return completes when every load has been answered, whether or not it succeeded: a failed load (an ACL, say)
	 * costs one {@code NOSCRIPT} later, not the connection
	 */
	static CompletableFuture<Void> load(StatefulConnection<String, String> connection, List<LuaScript> scripts) {
		RedisScriptingAsyncCommands<String, String> commands = scripting(connection);
		CompletableFuture<?>[] loads = scripts.stream()
			.map((script) -> commands.scriptLoad(script.source()).toCompletableFuture())
			.toArray(CompletableFuture[]::new);
		return CompletableFuture.allOf(loads).handle((ignored, ex) -> null);
	}

	private static RedisScriptingAsyncCommands<String, String> scripting(StatefulConnection<String, String> connection) {
		if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
			return cluster.async();
		}
		return ((StatefulRedisConnection<String, String>) connection).async();
	}

	/** Whether calls can go on {@code connection}, or it has to be replaced by a new one. */
	static boolean usable(StatefulConnection<String, String> connection) {
		if (connection instanceof StatefulRedisClusterConnection<?, ?>
				&& connection instanceof RedisChannelHandler<?, ?> handler) {
			// A cluster connection reconnects to its nodes by itself (the topology refreshes tell it where). It is not
			// "open" while the node of its default channel is down: replacing it then would load a topology from
			// before the replica's promotion and reconnect to a dead node, request after request.
			return !handler.isClosed();
		}
		return connection.isOpen();
	}

	/** Whether Redis answered with the error {@code code} ({@code NOSCRIPT}, {@code READONLY}). */
	static boolean hasCause(Throwable ex, String code) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null
					&& cause.getMessage().startsWith(code)) {
				return true;
			}
		}
		return false;
	}

}
