package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One round trip per decision, counted by Redis itself in {@code INFO commandstats}. This test owns its server,
 * because the counters are server-wide.
 */
class RoundTripTest {

	private TestRedis redis;

	private JedisPooled jedis;

	@BeforeEach
	void start() {
		this.redis = TestRedis.start();
		this.jedis = new JedisPooled(this.redis.host(), this.redis.port());
	}

	@AfterEach
	void stop() {
		this.jedis.close();
		this.redis.close();
	}

	@Test
	void everyDecisionIsOneScriptCallEvenForSeveralLimits() {
		RateLimiter limiter = new RedisRateLimiter(new JedisScriptExecutor(this.jedis));
		List<LimitRequest> limits = List.of(
				LimitDefinition.of("a", Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(1)).request(),
				LimitDefinition.of("b", Algorithm.SLIDING_LOG, 5, Duration.ofSeconds(1)).request(),
				LimitDefinition.of("c", Algorithm.SLIDING_WINDOW_COUNTER, 5, Duration.ofSeconds(1)).request(),
				LimitDefinition.of("d", Algorithm.TOKEN_BUCKET, 5, Duration.ofSeconds(1)).request());
		limiter.tryAcquire("warm-up", limits);
		assertThat(this.redis.command("CONFIG", "RESETSTAT")).isEqualTo("+OK");

		for (int i = 0; i < 40; i++) {
			limiter.tryAcquire("client" + (i % 3), limits);
		}
		assertThat(calls("evalsha")).isEqualTo(40);
		assertThat(calls("eval")).isZero();

		this.jedis.scriptFlush();
		for (int i = 0; i < 10; i++) {
			limiter.tryAcquire("client", limits);
		}
		// After a flush, the first decision's EVALSHA answers NOSCRIPT and one EVAL runs and caches the script
		// again; every later decision is one EVALSHA.
		assertThat(calls("evalsha")).isEqualTo(40 + 10);
		assertThat(calls("eval")).isEqualTo(1);
	}

	private long calls(String command) {
		String stats = this.jedis.info("commandstats");
		return stats.lines()
			.filter((line) -> line.startsWith("cmdstat_" + command + ":"))
			.map((line) -> line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))
			.mapToLong(Long::parseLong)
			.sum();
	}

}
