package dev.ratelimit.spring.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.test.TestRedisSentinel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static dev.ratelimit.spring.test.app.TestClock.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured limiter ({@link RateLimitAutoConfiguration} on Spring Data Redis with
 * {@code spring.data.redis.sentinel.master} and {@code .nodes}) behind a real Redis Sentinel (a master, a replica and
 * one Sentinel): exact limits on the master, and after a Sentinel failover the same application limits on the
 * promoted replica, whose script cache is empty, counting the state written before the failover.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SentinelAutoConfigurationIntegrationTests {

	private static final long T0 = 1_791_860_000_000L;

	private static final Duration SWITCH_TIMEOUT = Duration.ofSeconds(10);

	private static final Map<Algorithm, String> CODES = Map.of(Algorithm.FIXED_WINDOW, "fw", Algorithm.SLIDING_LOG,
			"sl", Algorithm.SLIDING_WINDOW_COUNTER, "swc", Algorithm.TOKEN_BUCKET, "tb");

	private static TestRedisSentinel redis;

	private static ApplicationContextRunner contextRunner;

	@BeforeAll
	static void startSentinel() {
		redis = TestRedisSentinel.start();
		contextRunner = new ApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.sentinel.master=" + redis.masterName(),
					"spring.data.redis.sentinel.nodes=" + redis.sentinelNodes(),
					// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
					"ratelimit.redis.timeout=10s");
	}

	@AfterAll
	static void stopSentinel() {
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	@Order(1)
	void limiterFollowsTheApplicationsSentinelConnectionDetailsToTheMaster() {
		run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RedisConnectionFactory.class);
			assertThat(context.getBean(LettuceConnectionFactory.class).isRedisSentinelAware()).isTrue();
			assertThat(context.getBean(RateLimiter.class)).isInstanceOf(RedisRateLimiter.class);
			assertThat(limiterConnections(redis.masterPort())).as("the master the Sentinel reports").isPositive();
			assertThat(limiterConnections(redis.replicaPort())).isZero();
		});
		contextRunner.withPropertyValues("ratelimit.redis.client=jedis").run((context) -> {
			LimitDefinition limit = LimitDefinition.of("three-jedis", Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(10));
			assertThat(admitted(context.getBean(RateLimiter.class), "jedis-client", limit, 5, T0 + 100)).isEqualTo(3);
			assertThat(redis.call(redis.masterPort(), "EXISTS", key("jedis-client", limit))).isEqualTo(1L);
		});
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	@Order(2)
	void limitOfThreeAdmitsExactlyThree(Algorithm algorithm) {
		LimitDefinition limit = LimitDefinition.of("three", algorithm, 3, Duration.ofSeconds(10));
		String client = "three-" + algorithm;
		run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			assertThat(admitted(limiter, client, limit, 5, T0 + 100)).isEqualTo(3);
			assertThat(admitted(limiter, client, limit, 5, T0 + 200)).isZero();
			assertThat(redis.call(redis.masterPort(), "EXISTS", key(client, limit))).isEqualTo(1L);
		});
	}

	@Test
	@Order(3)
	void limitOfThreeAtTheServersTimeAdmitsExactlyThree() {
		// The sliding log is exact whatever the time: no window boundary can let a fourth through within an hour.
		LimitDefinition limit = LimitDefinition.of("three-now", Algorithm.SLIDING_LOG, 3, Duration.ofHours(1));
		run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			int admitted = 0;
			for (int i = 0; i < 6; i++) {
				if (limiter.tryAcquire("now-client", limit).allowed()) {
					admitted++;
				}
			}
			assertThat(admitted).isEqualTo(3);
		});
	}

	@Test
	@Order(4)
	void afterAFailoverTheNewMasterLimitsWithTheStateWrittenBefore() {
		String sha = LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET)).sha1();
		run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			int oldMaster = redis.masterPort();
			assertThat(limiterConnections(oldMaster)).isPositive();
			for (Algorithm algorithm : Algorithm.rates()) {
				assertThat(admitted(limiter, carried(algorithm), hourly(algorithm), 3, T0 + 1_000)).as(algorithm.name())
					.isEqualTo(3);
			}
			assertThat(redis.call(oldMaster, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(1L));

			int newMaster = redis.failover();
			assertThat(newMaster).isNotEqualTo(oldMaster);
			// The promoted replica holds the state written before the failover, but not the script (NOSCRIPT).
			for (Algorithm algorithm : Algorithm.rates()) {
				assertThat(redis.call(newMaster, "EXISTS", key(carried(algorithm), hourly(algorithm))))
					.as(algorithm.name())
					.isEqualTo(1L);
			}
			assertThat(redis.call(newMaster, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(0L));

			// The limiter learns of the failover from the Sentinel's +switch-master, on its own thread, and leaves the
			// old master, which still accepts writes until the Sentinel reconfigures it some 10 s later.
			awaitNoLimiterConnection(oldMaster);
			// 3 of 5 taken before the failover: exactly 2 more now, on the new master.
			for (Algorithm algorithm : Algorithm.rates()) {
				assertThat(admitted(limiter, carried(algorithm), hourly(algorithm), 5, T0 + 2_000))
					.as(algorithm.name())
					.isEqualTo(2);
			}
			assertThat(redis.call(newMaster, "SCRIPT", "EXISTS", sha)).as("script cached again on the new master")
				.isEqualTo(List.of(1L));
			LimitDefinition three = LimitDefinition.of("three-after", Algorithm.TOKEN_BUCKET, 3, Duration.ofHours(1));
			assertThat(admitted(limiter, "fresh-after-failover", three, 5, T0 + 2_000)).isEqualTo(3);
			assertThat(redis.call(newMaster, "EXISTS", key("fresh-after-failover", three))).isEqualTo(1L);
		});
	}

	/** Waits until the limiter has no connection to the server on {@code port}. */
	private static void awaitNoLimiterConnection(int port) {
		long deadline = System.nanoTime() + SWITCH_TIMEOUT.toNanos();
		long connections;
		while ((connections = limiterConnections(port)) > 0) {
			assertThat(System.nanoTime())
				.as("the limiter still has " + connections + " connections to port " + port + " " + SWITCH_TIMEOUT
						+ " after the Sentinel switched its master")
				.isLessThan(deadline);
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	/** The number of the limiter's connections (named "ratelimit") on the server on {@code port}. */
	private static long limiterConnections(int port) {
		String clients = String.valueOf(redis.call(port, "CLIENT", "LIST"));
		return clients.lines().filter((line) -> line.contains(" name=ratelimit ")).count();
	}

	private static void run(ContextConsumer<AssertableApplicationContext> test) {
		contextRunner.run(test);
	}

	private static LimitDefinition hourly(Algorithm algorithm) {
		return LimitDefinition.of("hourly", algorithm, 5, Duration.ofHours(1));
	}

	private static String carried(Algorithm algorithm) {
		return "carried-" + algorithm;
	}

	/** The windows these tests use, as keys write them. */
	private static final Map<Long, String> WINDOWS = Map.of(10_000L, "10s", 3_600_000L, "1h");

	/**
	 * {@code rl:{<base64url of the first 9 bytes of the client's SHA-256>}:<name>:<algorithm>:<window>}, as the
	 * README documents.
	 */
	private static String key(String client, LimitDefinition limit) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(client.getBytes(StandardCharsets.UTF_8));
			return "rl:{" + Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 9)) + "}:"
					+ limit.name() + ":" + CODES.get(limit.algorithm()) + ":"
					+ Objects.requireNonNull(WINDOWS.get(limit.windowMs()), "no written form for this window");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static int admitted(RateLimiter limiter, String client, LimitDefinition limit, int requests, long now) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			if (at(limiter, now).tryAcquire(client, limit).allowed()) {
				admitted++;
			}
		}
		return admitted;
	}

}
