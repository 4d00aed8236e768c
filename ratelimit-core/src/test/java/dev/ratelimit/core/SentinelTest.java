package dev.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.test.TestRedisSentinel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.SafeEncoder;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter behind a real Redis Sentinel (a master, a replica and one Sentinel) through {@link JedisSentineled}:
 * exact limits on the master, and after a Sentinel failover the same client limits on the promoted replica, whose
 * script cache is empty (NOSCRIPT recovered), counting the state written before the failover; once the Sentinel has
 * turned the old master into a replica, that too.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SentinelTest {

	static final long T0 = ReferenceResults.T0;

	private static final Duration CLIENT_SWITCH_TIMEOUT = Duration.ofSeconds(10);

	private static TestRedisSentinel redis;

	private static JedisSentineled jedis;

	private static RateLimiter limiter;

	@BeforeAll
	static void startSentinel() {
		redis = TestRedisSentinel.start();
		jedis = new JedisSentineled(redis.masterName(), DefaultJedisClientConfig.builder().build(),
				Set.of(new HostAndPort(redis.host(), redis.sentinelPort())), DefaultJedisClientConfig.builder().build());
		limiter = new RedisRateLimiter(new JedisScriptExecutor(jedis));
	}

	@AfterAll
	static void stopSentinel() {
		if (jedis != null) {
			jedis.close();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	@Order(1)
	void limitOfThreeAdmitsExactlyThreeOnTheMaster(Algorithm algorithm) {
		LimitDefinition limit = LimitDefinition.of("three", algorithm, 3, Duration.ofSeconds(10));
		String client = "three-" + algorithm;
		int master = redis.masterPort();
		assertThat(jedis.getCurrentMaster()).isEqualTo(new HostAndPort(redis.host(), master));

		assertThat(admitted(client, limit, 5, T0 + 100)).isEqualTo(3);
		assertThat(admitted(client, limit, 5, T0 + 200)).isZero();
		assertThat(redis.call(master, "EXISTS", key(client, limit))).isEqualTo(1L);
	}

	@Test
	@Order(2)
	void limitOfThreeAtTheServersTimeAdmitsExactlyThree() {
		// The sliding log is exact whatever the time: no window boundary can let a fourth through within an hour.
		LimitDefinition limit = LimitDefinition.of("three-now", Algorithm.SLIDING_LOG, 3, Duration.ofHours(1));
		int admitted = 0;
		for (int i = 0; i < 6; i++) {
			if (limiter.tryAcquire("now-client", limit).allowed()) {
				admitted++;
			}
		}
		assertThat(admitted).isEqualTo(3);
	}

	@Test
	@Order(3)
	void afterAFailoverTheNewMasterLimitsWithTheStateWrittenBefore() {
		String sha = LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET)).sha1();
		int oldMaster = redis.masterPort();
		assertThat(jedis.getCurrentMaster().getPort()).isEqualTo(oldMaster);
		for (Algorithm algorithm : Algorithm.rates()) {
			assertThat(admitted(carried(algorithm), hourly(algorithm), 3, T0 + 1_000)).as(algorithm.name())
				.isEqualTo(3);
		}
		assertThat(redis.call(oldMaster, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(1L));

		int newMaster = redis.failover();
		assertThat(newMaster).isNotEqualTo(oldMaster);
		assertThat(redis.role(newMaster)).isEqualTo("master");
		// The promoted replica holds the state written before the failover, but not the script: a replica receives
		// a script's effects, never the script, so the client's first EVALSHA there answers NOSCRIPT.
		for (Algorithm algorithm : Algorithm.rates()) {
			assertThat(redis.call(newMaster, "EXISTS", key(carried(algorithm), hourly(algorithm))))
				.as(algorithm.name())
				.isEqualTo(1L);
		}
		assertThat(redis.call(newMaster, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(0L));

		awaitClientOn(newMaster);
		// 3 of 5 taken before the failover: exactly 2 more now, on the new master.
		for (Algorithm algorithm : Algorithm.rates()) {
			assertThat(admitted(carried(algorithm), hourly(algorithm), 5, T0 + 2_000)).as(algorithm.name())
				.isEqualTo(2);
		}
		assertThat(redis.call(newMaster, "SCRIPT", "EXISTS", sha)).as("script cached again on the new master")
			.isEqualTo(List.of(1L));
		LimitDefinition three = LimitDefinition.of("three-after", Algorithm.TOKEN_BUCKET, 3, Duration.ofHours(1));
		assertThat(admitted("fresh-after-failover", three, 5, T0 + 2_000)).isEqualTo(3);

		// The Sentinel turns the old master into a replica of the new one, which then holds the new master's state.
		redis.awaitReplicaInSync();
		assertThat(redis.replicaPort()).isEqualTo(oldMaster);
		assertThat(redis.role(oldMaster)).isEqualTo("slave");
		for (Algorithm algorithm : Algorithm.rates()) {
			String key = key(carried(algorithm), hourly(algorithm));
			assertThat(contents(oldMaster, key)).as(algorithm.name())
				.isNotEmpty()
				.isEqualTo(contents(newMaster, key));
		}
		// The same client still limits, on the new master, with every request so far counted.
		for (Algorithm algorithm : Algorithm.rates()) {
			assertThat(admitted(carried(algorithm), hourly(algorithm), 3, T0 + 3_000)).as(algorithm.name()).isZero();
		}
		assertThat(admitted("fresh-after-demotion", three, 5, T0 + 3_000)).isEqualTo(3);
		assertThat(jedis.getCurrentMaster().getPort()).isEqualTo(newMaster);
	}

	/** Waits until the client's pool serves {@code port}: it learns of the failover from the Sentinel's pub/sub. */
	/**
	 * Waits until the client's commands reach the server on {@code port}. JedisSentineled reports the new master
	 * ({@code getCurrentMaster()}) a moment before it swaps its pool, and the old master still accepts writes until
	 * the Sentinel demotes it: a call in between would go there.
	 */
	private static void awaitClientOn(int port) {
		long deadline = System.nanoTime() + CLIENT_SWITCH_TIMEOUT.toNanos();
		while (jedis.getCurrentMaster().getPort() != port || answeringPort() != port) {
			assertThat(System.nanoTime()).as("JedisSentineled still on " + jedis.getCurrentMaster() + " "
					+ CLIENT_SWITCH_TIMEOUT + " after the Sentinel reported port " + port)
				.isLessThan(deadline);
			sleep(20);
		}
	}

	/** The port of the server that answers the client's next command. */
	private static int answeringPort() {
		String info = SafeEncoder.encode((byte[]) jedis.sendCommand(Protocol.Command.INFO, "server"));
		return Integer.parseInt(info.replaceAll("(?s).*\\btcp_port:(\\d+).*", "$1"));
	}

	private static LimitDefinition hourly(Algorithm algorithm) {
		return LimitDefinition.of("hourly", algorithm, 5, Duration.ofHours(1));
	}

	private static String carried(Algorithm algorithm) {
		return "carried-" + algorithm;
	}

	/** The value stored under {@code key} on the server on {@code port}, whatever its type; empty if none. */
	private static List<Object> contents(int port, String key) {
		String type = (String) redis.call(port, "TYPE", key);
		List<Object> contents = new ArrayList<>(List.of(type));
		switch (type) {
			case "none" -> {
				return List.of();
			}
			case "string" -> contents.add(redis.call(port, "GET", key));
			case "hash" -> {
				List<?> pairs = (List<?>) redis.call(port, "HGETALL", key);
				Map<Object, Object> fields = new TreeMap<>();
				for (int i = 0; i + 1 < pairs.size(); i += 2) {
					fields.put(pairs.get(i), pairs.get(i + 1));
				}
				contents.add(fields);
			}
			case "zset" -> contents.add(redis.call(port, "ZRANGE", key, "0", "-1", "WITHSCORES"));
			default -> throw new IllegalStateException("unexpected type " + type + " of " + key);
		}
		return contents;
	}

	private static String key(String client, LimitDefinition limit) {
		return new RedisKeys(RedisRateLimiter.DEFAULT_KEY_PREFIX).key(client, limit);
	}

	private static int admitted(String client, LimitDefinition limit, int requests, long now) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			if (at(limiter, now).tryAcquire(client, limit).allowed()) {
				admitted++;
			}
		}
		return admitted;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
