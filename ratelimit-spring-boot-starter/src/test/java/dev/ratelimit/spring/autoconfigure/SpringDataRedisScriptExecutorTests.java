package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's production path to Redis, counted by Redis itself ({@code INFO commandstats}): one script call per
 * decision, {@code NOSCRIPT} recovered on the same call, and dead pooled connections replaced without charging twice.
 * This test owns its server, because the counters are server-wide.
 */
class SpringDataRedisScriptExecutorTests {

	private final List<LimitDefinition> limits = List.of(
			LimitDefinition.of("per-second", Algorithm.TOKEN_BUCKET, 5, Duration.ofSeconds(1)),
			LimitDefinition.of("per-hour", Algorithm.SLIDING_LOG, 1000, Duration.ofHours(1)));

	private TestRedis redis;

	private JedisConnectionFactory connectionFactory;

	private RateLimiter limiter;

	@BeforeEach
	void start() {
		this.redis = TestRedis.start();
		this.connectionFactory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		int attempts = this.connectionFactory.getPoolConfig().getMaxTotal() + 1;
		this.limiter = new RedisRateLimiter(
				new SpringDataRedisScriptExecutor(new StringRedisTemplate(this.connectionFactory), attempts));
	}

	@AfterEach
	void stop() {
		this.connectionFactory.destroy();
		this.redis.close();
	}

	@Test
	void everyDecisionIsOneScriptCallAndAFlushCostsOneEval() {
		this.limiter.tryAcquire("warm-up", this.limits);
		assertThat(this.redis.command("CONFIG", "RESETSTAT")).isEqualTo("+OK");
		for (int i = 0; i < 30; i++) {
			this.limiter.tryAcquire("client" + (i % 3), this.limits);
		}
		assertThat(calls("evalsha")).isEqualTo(30);
		assertThat(calls("eval")).isZero();

		assertThat(this.redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
		for (int i = 0; i < 5; i++) {
			this.limiter.tryAcquire("client", this.limits);
		}
		assertThat(calls("evalsha")).isEqualTo(35);
		assertThat(calls("eval")).isEqualTo(1);
	}

	@Test
	void afterARestartTheFirstDecisionSucceedsAndIsChargedOnce() {
		// Fill the pool with idle connections, all dead once the server restarts.
		List<Thread> threads = new java.util.ArrayList<>();
		for (int i = 0; i < 8; i++) {
			Thread thread = new Thread(() -> this.limiter.tryAcquire("filler", this.limits));
			thread.start();
			threads.add(thread);
		}
		threads.forEach(SpringDataRedisScriptExecutorTests::join);
		this.redis.stop();
		this.redis.restart();

		assertThat(this.limiter.tryAcquire("client", this.limits).remaining()).isEqualTo(4);
		assertThat(this.limiter.tryAcquire("client", this.limits).remaining()).isEqualTo(3);
	}

	private long calls(String command) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			String stats = connection.serverCommands().info("commandstats").getProperty("cmdstat_" + command);
			return (stats != null) ? Long.parseLong(stats.replaceAll("^calls=(\\d+),.*", "$1")) : 0;
		}
	}

	private static void join(Thread thread) {
		try {
			thread.join(10_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
