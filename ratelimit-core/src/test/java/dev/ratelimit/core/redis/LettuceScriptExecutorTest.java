package dev.ratelimit.core.redis;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.test.TestRedis;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LettuceScriptExecutor} on a Redis of its own, built as {@code docs/WITHOUT-SPRING.md} shows: scripts run
 * after {@code SCRIPT FLUSH}, and a restarted Redis gets a new connection.
 */
class LettuceScriptExecutorTest {

	private static final LuaScript SCRIPT = LuaScript.of("return { tonumber(ARGV[1]) + 1, #KEYS }");

	private TestRedis redis;

	private RedisClient client;

	private LettuceScriptExecutor executor;

	private boolean shutDown;

	@BeforeEach
	void start() {
		this.redis = TestRedis.start();
		this.client = RedisClient.create();
		// as the starter's client: the executor opens a new connection when it finds one closed
		this.client.setOptions(ClientOptions.builder().autoReconnect(false).build());
		RedisURI uri = RedisURI.create(this.redis.url());
		EventLoopTimeouts timer = new EventLoopTimeouts(this.client.getResources()::eventExecutorGroup);
		this.executor = new LettuceScriptExecutor(() -> this.client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture(),
				List.of(SCRIPT), Duration.ofSeconds(2), timer, () -> {
					this.shutDown = true;
					this.client.shutdown();
				});
	}

	@AfterEach
	void stop() {
		this.executor.close();
		this.redis.close();
	}

	@Test
	void runsAScriptAgainAfterTheScriptCacheIsFlushed() {
		assertThat(this.executor.connect()).succeedsWithin(Duration.ofSeconds(5));
		assertThat(this.executor.execute(SCRIPT, List.of("k"), List.of("41"))).containsExactly(42L, 1L);
		assertThat(this.redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
		assertThat(this.executor.execute(SCRIPT, List.of("k", "l"), List.of("1"))).containsExactly(2L, 2L);
		assertThat(this.executor.executeAsync(SCRIPT, List.of(), List.of("6")).toCompletableFuture().join())
			.containsExactly(7L, 0L);
	}

	@Test
	void aRestartedRedisGetsANewConnection() {
		assertThat(this.executor.connect()).succeedsWithin(Duration.ofSeconds(5));
		this.redis.stop();
		assertThatThrownBy(() -> this.executor.execute(SCRIPT, List.of("k"), List.of("1")))
			.isInstanceOf(RuntimeException.class);
		this.redis.restart();
		assertThat(this.executor.execute(SCRIPT, List.of("k"), List.of("1"))).containsExactly(2L, 1L);
	}

	@Test
	void closingReleasesTheClientAndFailsLaterCalls() {
		assertThat(this.executor.connect()).succeedsWithin(Duration.ofSeconds(5));
		this.executor.close();
		assertThat(this.shutDown).isTrue();
		assertThatThrownBy(() -> this.executor.execute(SCRIPT, List.of("k"), List.of("1")))
			.hasMessageContaining("closed");
	}

}
