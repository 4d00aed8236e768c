package dev.ratelimit.spring.autoconfigure;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.ScriptExecutor;
import redis.clients.jedis.exceptions.JedisConnectionException;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The core's {@link ScriptExecutor} on Spring Data Redis, so the limiter uses the application's
 * {@code RedisConnectionFactory}. Spring Data runs scripts with {@code EVALSHA} and falls back to {@code EVAL} on
 * {@code NOSCRIPT}; failures surface as Spring's {@code DataAccessException}.
 *
 * <p>
 * After Redis restarts or fails over, every idle pooled connection is dead, and each fails the first call that
 * borrows it, at once. Such a call is tried again, up to {@code attempts} times in all (the pool's size plus one
 * covers a pool full of dead connections), so limiting resumes with the first request instead of letting the next
 * few through (fail-open) or refusing them (fail-closed). Timeouts are never retried: they would multiply the wait.
 * A connection closed by a live server after it ran the script (rare: {@code CLIENT KILL}, an output-buffer limit)
 * makes the retry charge the request twice; that errs on the side of limiting, never of admitting too much.
 */
final class SpringDataRedisScriptExecutor implements ScriptExecutor {

	private final StringRedisTemplate template;

	private final int attempts;

	private final Map<LuaScript, RedisScript<List>> scripts = new ConcurrentHashMap<>();

	SpringDataRedisScriptExecutor(StringRedisTemplate template, int attempts) {
		this.template = template;
		this.attempts = attempts;
	}

	@Override
	@SuppressWarnings("unchecked")
	public List<Long> execute(LuaScript script, List<String> keys, List<String> args) {
		RedisScript<List> redisScript = this.scripts.computeIfAbsent(script,
				(lua) -> RedisScript.of(lua.source(), List.class));
		for (int attempt = 1;; attempt++) {
			try {
				return this.template.execute(redisScript, keys, args.toArray());
			}
			catch (RedisConnectionFailureException ex) {
				if (attempt >= this.attempts || !closedConnection(ex)) {
					throw ex;
				}
			}
		}
	}

	/** A connection found closed or refused, as opposed to a timeout or a pool with no connection to spare. */
	static boolean closedConnection(Throwable ex) {
		boolean connectionFailure = false;
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SocketTimeoutException || cause instanceof NoSuchElementException) {
				return false;
			}
			if (cause instanceof SocketException) {
				return true;
			}
			connectionFailure |= cause instanceof JedisConnectionException;
		}
		return connectionFailure;
	}

}
