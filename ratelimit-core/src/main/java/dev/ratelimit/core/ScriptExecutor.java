package dev.ratelimit.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Runs a Lua script on Redis. The core ships executors on Jedis and on Lettuce ({@code dev.ratelimit.core.redis}),
 * which the Spring Boot starter uses for the limiter's own Redis client.
 *
 * <p>
 * Implementations run the script with {@code EVALSHA} and, when Redis answers {@code NOSCRIPT} (its script cache
 * was flushed, or the server restarted or failed over), send the source on the same call ({@code EVAL}, which
 * also caches it), so the caller always gets the script's reply. They route by {@code keys}, so a Redis Cluster
 * client sends the call to the node that owns the keys' hash slot. An implementation may send a call again when its
 * connection was found closed; it must not retry timeouts, which would multiply the wait.
 */
public interface ScriptExecutor {

	/**
	 * Runs {@code script} once.
	 * @param script the script
	 * @param keys its {@code KEYS}
	 * @param args its {@code ARGV}
	 * @return the script's reply, an array of integers
	 * @throws RuntimeException the client's exception when Redis cannot be reached, times out, or answers an error
	 */
	List<Long> execute(LuaScript script, List<String> keys, List<String> args);

	/**
	 * Runs {@code script} once without making the caller wait for Redis, so that a caller can bound its own wait
	 * (one deadline for several calls). The default runs {@link #execute} on the calling thread; clients with an
	 * asynchronous API (Lettuce) override it.
	 * @return the script's reply, or a stage completed exceptionally with the client's exception
	 */
	default CompletionStage<List<Long>> executeAsync(LuaScript script, List<String> keys, List<String> args) {
		try {
			return CompletableFuture.completedFuture(execute(script, keys, args));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
