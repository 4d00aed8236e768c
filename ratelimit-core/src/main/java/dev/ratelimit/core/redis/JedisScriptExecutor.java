package dev.ratelimit.core.redis;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.ScriptExecutor;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A {@link ScriptExecutor} on Jedis. {@link UnifiedJedis} covers standalone ({@code RedisClient}), Sentinel and
 * Cluster ({@code RedisClusterClient}) deployments alike. Jedis' exceptions pass through.
 */
public final class JedisScriptExecutor implements ScriptExecutor {

	private final UnifiedJedis jedis;

	/** An executor on {@code jedis}, which the caller owns and closes. */
	public JedisScriptExecutor(UnifiedJedis jedis) {
		this.jedis = Objects.requireNonNull(jedis, "jedis must not be null");
	}

	@Override
	@SuppressWarnings("unchecked")
	public List<Long> execute(LuaScript script, List<String> keys, List<String> args) {
		Object reply;
		try {
			reply = this.jedis.evalsha(script.sha1(), keys, args);
		}
		catch (JedisNoScriptException ex) {
			// Script cache empty (flush, restart, failover): EVAL runs the source and caches it again.
			reply = this.jedis.eval(script.source(), keys, args);
		}
		return (List<Long>) reply;
	}

	/** A connection found closed or refused, as opposed to a timeout or a pool with no connection to spare. */
	static boolean closedConnection(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SocketTimeoutException || cause instanceof NoSuchElementException) {
				return false;
			}
			if (cause instanceof SocketException) {
				return true;
			}
		}
		// Jedis reports a connection the server closed ("Unexpected end of stream") without a SocketException.
		return ex.getMessage() != null && ex.getMessage().contains("end of stream");
	}

}
