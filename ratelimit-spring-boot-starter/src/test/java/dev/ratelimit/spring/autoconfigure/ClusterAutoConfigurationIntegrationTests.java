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
import java.util.TreeMap;
import java.util.stream.IntStream;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.ClientUsage;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.Usage;
import dev.ratelimit.test.TestRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

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
 * {@code spring.data.redis.cluster.nodes}) on a real three-master Redis Cluster: every client limited exactly
 * wherever its slot lives, several limits decided all or nothing, and a flushed script cache recovered.
 */
class ClusterAutoConfigurationIntegrationTests {

	private static final long T0 = 1_791_860_000_000L;

	private static final Map<Algorithm, String> CODES = Map.of(Algorithm.FIXED_WINDOW, "fw", Algorithm.SLIDING_LOG,
			"sl", Algorithm.SLIDING_WINDOW_COUNTER, "swc", Algorithm.TOKEN_BUCKET, "tb");

	private static TestRedisCluster redis;

	private static ApplicationContextRunner contextRunner;

	@BeforeAll
	static void startCluster() {
		redis = TestRedisCluster.start();
		contextRunner = new ApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
			.withPropertyValues("spring.data.redis.cluster.nodes=" + redis.nodes(), "ratelimit.redis.timeout=10s");
	}

	@AfterAll
	static void stopCluster() {
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void limiterFollowsTheApplicationsClusterConnectionDetails() {
		run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RedisConnectionFactory.class);
			assertThat(context.getBean(LettuceConnectionFactory.class).isClusterAware()).isTrue();
			assertThat(context.getBean(RateLimiter.class)).isInstanceOf(RedisRateLimiter.class);
		});
	}

	@Test
	void limiterOnJedisAdmitsExactlyThreeForClientsOnEveryNode() {
		LimitDefinition limit = LimitDefinition.of("three-jedis", Algorithm.TOKEN_BUCKET, 3, Duration.ofSeconds(10));
		List<String> clients = clients("jedis-client", 24);
		assertThat(nodesOf(clients, limit).keySet()).hasSize(TestRedisCluster.NODES);
		contextRunner.withPropertyValues("ratelimit.redis.client=jedis")
			.run((context) -> assertThreeEachOnTheirNodes(context.getBean(RateLimiter.class), clients, limit));
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void limitOfThreeAdmitsExactlyThreeForClientsOnEveryNode(Algorithm algorithm) {
		LimitDefinition limit = LimitDefinition.of("three", algorithm, 3, Duration.ofSeconds(10));
		List<String> clients = clients("client-" + algorithm, 24);
		assertThat(nodesOf(clients, limit).keySet()).as("nodes holding the clients' keys")
			.hasSize(TestRedisCluster.NODES);
		run((context) -> assertThreeEachOnTheirNodes(context.getBean(RateLimiter.class), clients, limit));
	}

	private static void assertThreeEachOnTheirNodes(RateLimiter limiter, List<String> clients, LimitDefinition limit) {
		int[] admitted = new int[clients.size()];
		// Interleaved, so consecutive calls go to different nodes.
		for (int round = 0; round < 5; round++) {
			for (int i = 0; i < clients.size(); i++) {
				if (at(limiter, T0 + 100 + round).tryAcquire(clients.get(i), limit).allowed()) {
					admitted[i]++;
				}
			}
		}
		assertThat(admitted).containsOnly(3);
		for (String client : clients) {
			assertStoredOnItsNode(key(client, limit));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void usageIsKeptBesideEveryClientsKeysAndReadAcrossTheCluster(String library) {
		LimitDefinition limit = LimitDefinition.of("usage-" + library, Algorithm.FIXED_WINDOW, 100, Duration.ofHours(1))
			.withUsage();
		List<String> clients = clients("key:usage-" + library, 12);
		assertThat(nodesOf(clients, limit).keySet()).hasSize(TestRedisCluster.NODES);
		contextRunner.withPropertyValues("ratelimit.redis.client=" + library).run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			for (int i = 0; i < clients.size(); i++) {
				// a script touches one slot: the usage set of the client's slot, beside its keys
				assertThat(at(limiter, T0).tryAcquire(clients.get(i), limit.request(i + 1)).allowed()).isTrue();
			}
			Usage usage = at(limiter, T0).usage(limit, Usage.Period.CURRENT, 0, 5);
			assertThat(usage.clients()).isEqualTo(12);
			assertThat(usage.entries()).extracting(ClientUsage::units).containsExactly(12L, 11L, 10L, 9L, 8L);
			assertThat(usage.entries().get(0).clientId()).isEqualTo(clients.get(11));
		});
	}

	@Test
	void limitOfThreeAtTheServersTimeAdmitsExactlyThreeForClientsOnEveryNode() {
		// The sliding log is exact whatever the time: no window boundary can let a fourth through within an hour.
		LimitDefinition limit = LimitDefinition.of("three-now", Algorithm.SLIDING_LOG, 3, Duration.ofHours(1));
		List<String> clients = clients("now-client", 12);
		assertThat(nodesOf(clients, limit).keySet()).hasSize(TestRedisCluster.NODES);
		run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			int[] admitted = new int[clients.size()];
			for (int round = 0; round < 5; round++) {
				for (int i = 0; i < clients.size(); i++) {
					if (limiter.tryAcquire(clients.get(i), limit).allowed()) {
						admitted[i]++;
					}
				}
			}
			assertThat(admitted).containsOnly(3);
		});
	}

	@Test
	void severalLimitsAcrossAlgorithmsAreDecidedAllOrNothing() {
		LimitDefinition fixed = LimitDefinition.of("a", Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10));
		LimitDefinition log = LimitDefinition.of("b", Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(10));
		LimitDefinition counter = LimitDefinition.of("c", Algorithm.SLIDING_WINDOW_COUNTER, 4, Duration.ofSeconds(10));
		LimitDefinition bucket = LimitDefinition.of("d", Algorithm.TOKEN_BUCKET, 6, Duration.ofSeconds(10));
		List<LimitDefinition> limits = List.of(fixed, log, counter, bucket);
		List<String> clients = clients("all-or-nothing", 6);
		assertThat(nodesOf(clients, fixed)).hasSizeGreaterThanOrEqualTo(2);
		long now = T0 + 200;
		run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			for (String client : clients) {
				assertThat(admitted(limiter, client, limits, 3, now)).as(client).isEqualTo(3);
				for (int i = 0; i < 3; i++) {
					RateLimitDecision denied = at(limiter, now)
						.tryAcquire(client, limits.stream().map(LimitDefinition::request).toList());
					assertThat(denied.allowed()).isFalse();
					assertThat(denied.violated()).extracting(LimitDecision::request).containsExactly(log.request());
					assertThat(denied.decisions()).extracting(LimitDecision::remaining).containsExactly(2L, 0L, 1L, 3L);
				}
				// The denied requests took nothing from the limits that allowed them.
				assertThat(admitted(limiter, client, List.of(fixed), 10, now)).as(client).isEqualTo(2);
				assertThat(admitted(limiter, client, List.of(counter), 10, now)).as(client).isEqualTo(1);
				assertThat(admitted(limiter, client, List.of(bucket), 10, now)).as(client).isEqualTo(3);
				for (LimitDefinition limit : limits) {
					assertStoredOnItsNode(key(client, limit));
				}
			}
		});
	}

	@Test
	void flushedScriptCacheOnEveryNodeIsRecovered() {
		LimitDefinition limit = LimitDefinition.of("flush", Algorithm.TOKEN_BUCKET, 2, Duration.ofSeconds(10));
		List<String> clients = clients("flush-client", 12);
		assertThat(nodesOf(clients, limit).keySet()).hasSize(TestRedisCluster.NODES);
		String sha = LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET)).sha1();
		run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			for (String client : clients) {
				assertThat(at(limiter, T0 + 300).tryAcquire(client, limit).allowed()).isTrue();
			}
			redis.scriptFlush();
			for (int node = 0; node < TestRedisCluster.NODES; node++) {
				assertThat(redis.call(node, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(0L));
			}
			for (String client : clients) {
				assertThat(admitted(limiter, client, List.of(limit), 3, T0 + 300)).as(client).isEqualTo(1);
			}
			for (int node = 0; node < TestRedisCluster.NODES; node++) {
				assertThat(redis.call(node, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(1L));
			}
		});
	}

	private static void run(ContextConsumer<AssertableApplicationContext> test) {
		contextRunner.run(test);
	}

	private static List<String> clients(String prefix, int count) {
		return IntStream.range(0, count).mapToObj((i) -> prefix + "-" + i).toList();
	}

	/** Clients per node that serves their key for {@code limit}. */
	private static Map<Integer, Integer> nodesOf(List<String> clients, LimitDefinition limit) {
		Map<Integer, Integer> clientsPerNode = new TreeMap<>();
		for (String client : clients) {
			clientsPerNode.merge(redis.nodeOf(key(client, limit)), 1, Integer::sum);
		}
		return clientsPerNode;
	}

	/** The key is on the node its slot names, so the limiter's state really is spread over the cluster. */
	private static void assertStoredOnItsNode(String key) {
		assertThat(redis.call(redis.nodeOf(key), "EXISTS", key)).as(key).isEqualTo(1L);
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

	private static int admitted(RateLimiter limiter, String client, List<LimitDefinition> limits, int requests,
			long now) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			if (at(limiter, now).tryAcquire(client, limits.stream().map(LimitDefinition::request).toList()).allowed()) {
				admitted++;
			}
		}
		return admitted;
	}

}
