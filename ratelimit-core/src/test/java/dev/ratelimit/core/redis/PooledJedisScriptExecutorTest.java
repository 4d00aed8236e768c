package dev.ratelimit.core.redis;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisConnectionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PooledJedisScriptExecutor} on a Redis of its own: scripts run after {@code SCRIPT FLUSH} and after a
 * restart, and only a closed connection is sent again.
 */
class PooledJedisScriptExecutorTest {

	private static final LuaScript SCRIPT = LuaScript.of("return { tonumber(ARGV[1]) + 1, #KEYS }");

	private TestRedis redis;

	private PooledJedisScriptExecutor executor;

	@BeforeEach
	void start() {
		this.redis = TestRedis.start();
		this.executor = new PooledJedisScriptExecutor(() -> new JedisPooled(this.redis.host(), this.redis.port()), 2,
				Duration.ofSeconds(2), List.of(SCRIPT));
	}

	@AfterEach
	void stop() {
		this.executor.close();
		this.redis.close();
	}

	@Test
	void runsAScriptAgainAfterTheScriptCacheIsFlushed() {
		assertThat(this.executor.execute(SCRIPT, List.of("k"), List.of("41"))).containsExactly(42L, 1L);
		assertThat(this.redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
		assertThat(this.executor.executeAsync(SCRIPT, List.of("k", "l"), List.of("1")).toCompletableFuture().join())
			.containsExactly(2L, 2L);
	}

	@Test
	void theConnectionsARestartClosedAreReplacedOnTheFirstCall() {
		// both pooled connections open and idle
		List.of(this.executor.executeAsync(SCRIPT, List.of("a"), List.of("1")),
				this.executor.executeAsync(SCRIPT, List.of("b"), List.of("1")))
			.forEach((call) -> call.toCompletableFuture().join());
		this.redis.stop();
		this.redis.restart();
		assertThat(this.executor.execute(SCRIPT, List.of("k"), List.of("1"))).containsExactly(2L, 1L);
	}

	@Test
	void onlyAClosedConnectionIsSentAgain() {
		assertThat(JedisScriptExecutor.closedConnection(new JedisConnectionException(new SocketException("reset"))))
			.isTrue();
		assertThat(JedisScriptExecutor.closedConnection(new JedisConnectionException("Unexpected end of stream.")))
			.isTrue();
		assertThat(JedisScriptExecutor
			.closedConnection(new JedisConnectionException(new SocketTimeoutException("Read timed out")))).isFalse();
		assertThat(JedisScriptExecutor
			.closedConnection(new JedisConnectionException("Could not get a resource from the pool",
					new NoSuchElementException("Timeout waiting for idle object")))).isFalse();
	}

	@Test
	void callsAfterCloseFail() {
		this.executor.close();
		assertThatThrownBy(() -> this.executor.executeAsync(SCRIPT, List.of("k"), List.of("1"))
			.toCompletableFuture()
			.join()).isInstanceOf(CompletionException.class).hasCauseInstanceOf(RejectedExecutionException.class);
	}

}
