package dev.ratelimit.core;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.test.TestRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The limiter on a real three-master Redis Cluster through {@link JedisCluster}: the reference numbers, several
 * limits decided together, clients spread over the nodes, and a flushed script cache on every node.
 */
class ClusterTest {

	static final long T0 = ReferenceResults.T0;

	private static TestRedisCluster redis;

	private static JedisCluster cluster;

	private static RateLimiter limiter;

	@BeforeAll
	static void startCluster() {
		redis = TestRedisCluster.start();
		cluster = new JedisCluster(redis.ports()
			.stream()
			.map((port) -> new HostAndPort(redis.host(), port))
			.collect(Collectors.toSet()));
		limiter = new RedisRateLimiter(new JedisScriptExecutor(cluster));
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void resetAllIsRefusedOnAClusterWhoseKeysNoSingleCallReaches() {
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(limiter::resetAll)
			.withMessageContaining("Redis Cluster");
	}

	@ParameterizedTest
	@CsvSource({ "FIXED_WINDOW, 10, 10", "SLIDING_LOG, 10, 0", "SLIDING_WINDOW_COUNTER, 10, 1", "TOKEN_BUCKET, 10, 0" })
	void boundaryBurst(Algorithm algorithm, int admittedBefore, int admittedAfter) {
		LimitDefinition limit = LimitDefinition.of("burst", algorithm, 10, Duration.ofSeconds(1));
		String client = "burst-client-" + algorithm;
		assertThat(admitted(client, List.of(limit), 15, T0 + 990)).isEqualTo(admittedBefore);
		assertThat(admitted(client, List.of(limit), 15, T0 + 1010)).isEqualTo(admittedAfter);
		assertThat(keyExistsOnlyOnItsNode(key(client, limit))).isTrue();
	}

	@Test
	void severalLimitsAcrossAlgorithmsAreDecidedAllOrNothing() {
		String client = "all-or-nothing";
		LimitDefinition fixed = LimitDefinition.of("a", Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10));
		LimitDefinition log = LimitDefinition.of("b", Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(10));
		LimitDefinition counter = LimitDefinition.of("c", Algorithm.SLIDING_WINDOW_COUNTER, 4, Duration.ofSeconds(10));
		LimitDefinition bucket = LimitDefinition.of("d", Algorithm.TOKEN_BUCKET, 6, Duration.ofSeconds(10));
		List<LimitDefinition> limits = List.of(fixed, log, counter, bucket);
		long now = T0 + 100;

		// One slot for all keys of the decision, or the cluster would answer CROSSSLOT.
		assertThat(limits.stream().map((limit) -> redis.slot(key(client, limit))).distinct()).hasSize(1);

		for (int i = 0; i < 3; i++) {
			assertThat(at(limiter, now).tryAcquire(client, requests(limits)).allowed()).isTrue();
		}
		for (int i = 0; i < 4; i++) {
			RateLimitDecision denied = at(limiter, now).tryAcquire(client, requests(limits));
			assertThat(denied.allowed()).isFalse();
			assertThat(denied.violated()).extracting(LimitDecision::request).containsExactly(log.request());
			assertThat(denied.decisions()).extracting(LimitDecision::remaining).containsExactly(2L, 0L, 1L, 3L);
		}
		// The denied requests consumed nothing from the limits that allowed them: each has exactly what the three
		// admitted requests left.
		assertThat(admitted(client, List.of(fixed), 10, now)).isEqualTo(2);
		assertThat(admitted(client, List.of(counter), 10, now)).isEqualTo(1);
		assertThat(admitted(client, List.of(bucket), 10, now)).isEqualTo(3);
		assertThat(admitted(client, List.of(log), 10, now)).isZero();
		for (LimitDefinition limit : limits) {
			assertThat(keyExistsOnlyOnItsNode(key(client, limit))).as(limit.name()).isTrue();
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void clientsOnEveryNodeAreEachLimitedExactly(Algorithm algorithm) {
		LimitDefinition limit = LimitDefinition.of("spread", algorithm, 3, Duration.ofSeconds(10));
		List<String> clients = IntStream.range(0, 24).mapToObj((i) -> "client-" + algorithm + "-" + i).toList();
		TreeMap<Integer, Integer> clientsPerNode = new TreeMap<>();
		for (String client : clients) {
			clientsPerNode.merge(redis.nodeOf(key(client, limit)), 1, Integer::sum);
		}
		assertThat(clientsPerNode.keySet()).as("nodes holding the clients' keys").hasSize(TestRedisCluster.NODES);

		// Interleaved, so consecutive calls go to different nodes.
		int[] admitted = new int[clients.size()];
		for (int round = 0; round < 5; round++) {
			for (int i = 0; i < clients.size(); i++) {
				if (at(limiter, T0 + 200 + round).tryAcquire(clients.get(i), limit).allowed()) {
					admitted[i]++;
				}
			}
		}
		assertThat(admitted).containsOnly(3);
		for (String client : clients) {
			assertThat(keyExistsOnlyOnItsNode(key(client, limit))).as(client).isTrue();
		}
	}

	/**
	 * 16 threads, 8 clients on every node: onCluster(), a batch's decisions share a hash slot (a lane per slot), and
	 * batches form; each client admitted exactly its limit.
	 */
	@Test
	void batchesOnAClusterNeverMixSlots() throws Exception {
		DecisionBatchesTest.Recorder recorder = new DecisionBatchesTest.Recorder(new JedisScriptExecutor(cluster));
		RateLimiter onCluster = at(new RedisRateLimiter(recorder, "slots:").onCluster(), T0);
		int[] admitted = concurrently(onCluster, "slots");
		assertThat(admitted).containsOnly(5);
		assertThat(recorder.calls).allSatisfy((call) -> assertThat(call.keys().stream()
			.map((key) -> ClusterSlots.slot(key.substring(key.indexOf('{') + 1, key.indexOf('}'))))
			.distinct()).hasSize(1));
		assertThat(recorder.calls).as("batches formed").anyMatch(DecisionBatchesTest.Sent::batch);
	}

	/**
	 * A limiter not told of the Cluster has one lane: a batch of several slots is refused by the client (Jedis sends
	 * no keys of several slots) and sent again decision by decision, each still decided exactly.
	 */
	@Test
	void aBatchOfSeveralSlotsIsSentAgainDecisionByDecision() throws Exception {
		DecisionBatchesTest.Recorder recorder = new DecisionBatchesTest.Recorder(new JedisScriptExecutor(cluster));
		RateLimiter oneLane = at(new RedisRateLimiter(recorder, "lane:"), T0);
		assertThat(concurrently(oneLane, "lane")).containsOnly(5);
		assertThat(recorder.calls).as("batches tried").anyMatch(DecisionBatchesTest.Sent::batch);
	}

	/** 16 threads, each 20 decisions of the 8 clients in turn, a fixed window of 5: the admissions per client. */
	private static int[] concurrently(RateLimiter limiter, String name) throws Exception {
		LimitDefinition limit = LimitDefinition.of(name, Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10));
		List<String> clients = IntStream.range(0, 8).mapToObj((i) -> name + "-client-" + i).toList();
		java.util.concurrent.atomic.AtomicIntegerArray admitted = new java.util.concurrent.atomic.AtomicIntegerArray(
				clients.size());
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(16);
		try {
			List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
			for (int t = 0; t < 16; t++) {
				int thread = t;
				done.add(threads.submit(() -> {
					for (int i = 0; i < 20; i++) {
						int client = (thread + i) % clients.size();
						if (limiter.tryAcquire(clients.get(client), limit).allowed()) {
							admitted.incrementAndGet(client);
						}
					}
				}));
			}
			for (java.util.concurrent.Future<?> future : done) {
				future.get(60, java.util.concurrent.TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		return IntStream.range(0, clients.size()).map(admitted::get).toArray();
	}

	@Test
	void flushedScriptCacheOnEveryNodeIsRecovered() {
		LimitDefinition limit = LimitDefinition.of("flush", Algorithm.SLIDING_LOG, 2, Duration.ofSeconds(10));
		List<String> clients = clientsOnEveryNode(limit);
		String sha = LuaScript.rateLimit(List.of(Algorithm.SLIDING_LOG)).sha1();
		for (String client : clients) {
			assertThat(at(limiter, T0 + 300).tryAcquire(client, limit).allowed()).isTrue();
		}
		for (int node = 0; node < TestRedisCluster.NODES; node++) {
			assertThat(redis.call(node, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(1L));
		}

		redis.scriptFlush();
		for (int node = 0; node < TestRedisCluster.NODES; node++) {
			assertThat(redis.call(node, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(0L));
		}

		// Each client had one admitted before the flush: one more each, then denied. The state survived the flush.
		for (String client : clients) {
			assertThat(admitted(client, List.of(limit), 3, T0 + 301)).as(client).isEqualTo(1);
		}
		for (int node = 0; node < TestRedisCluster.NODES; node++) {
			assertThat(redis.call(node, "SCRIPT", "EXISTS", sha)).as("script cached again on node " + node)
				.isEqualTo(List.of(1L));
		}
	}

	@Test
	void theSlotsOfClientsAndUsageTagsAreTheClustersOwn() {
		LimitDefinition limit = LimitDefinition.of("slots", Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
		for (int i = 0; i < 100; i++) {
			String client = "slot-client-" + i;
			assertThat(RedisKeys.slot(client)).as(client).isEqualTo(redis.slot(key(client, limit)));
		}
		for (int slot = 0; slot < ClusterSlots.SLOTS; slot += 97) {
			assertThat(redis.slot(ClusterSlots.tag(slot) + ":usage:api")).isEqualTo(slot);
		}
		assertThat(redis.slot(ClusterSlots.tag(ClusterSlots.SLOTS - 1))).isEqualTo(ClusterSlots.SLOTS - 1);
	}

	@Test
	void usageIsKeptBesideEachClientsKeysAndReadAcrossTheSlots() {
		RateLimiter onCluster = ((RedisRateLimiter) limiter).onCluster();
		LimitDefinition api = LimitDefinition.of("usage-api", Algorithm.FIXED_WINDOW, 1000, Duration.ofHours(1))
			.withUsage();
		Set<Integer> nodes = new HashSet<>();
		for (int i = 0; i < 30; i++) {
			String client = "key:usage-" + i;
			assertThat(at(onCluster, T0).tryAcquire(client, api.request(i + 1)).allowed()).isTrue();
			nodes.add(redis.nodeOf(key(client, api)));
		}
		assertThat(nodes).hasSize(TestRedisCluster.NODES);

		Usage first = at(onCluster, T0).usage(api, Usage.Period.CURRENT, 0, 10);
		assertThat(first.clients()).isEqualTo(30);
		assertThat(first.entries()).extracting(ClientUsage::units).containsExactly(30L, 29L, 28L, 27L, 26L, 25L, 24L,
				23L, 22L, 21L);
		assertThat(first.entries().get(0).clientId()).isEqualTo("key:usage-29");
		assertThat(at(onCluster, T0).usage(api, Usage.Period.CURRENT, 2, 10).entries()).extracting(ClientUsage::units)
			.containsExactly(10L, 9L, 8L, 7L, 6L, 5L, 4L, 3L, 2L, 1L);

		// without onCluster() the usage set is one key, in another slot than the client's: no script can touch both
		assertThatThrownBy(() -> at(limiter, T0).tryAcquire("key:usage-0", api.request()))
			.hasMessageContaining("slot");
	}

	/** One client id per node, whose key for {@code limit} that node serves. */
	private static List<String> clientsOnEveryNode(LimitDefinition limit) {
		String[] byNode = new String[TestRedisCluster.NODES];
		Set<Integer> found = new HashSet<>();
		for (int i = 0; found.size() < TestRedisCluster.NODES; i++) {
			String client = "flush-client-" + i;
			int node = redis.nodeOf(key(client, limit));
			if (found.add(node)) {
				byNode[node] = client;
			}
		}
		return List.of(byNode);
	}

	/**
	 * Whether {@code key} is stored on the node that serves its slot, and the others redirect it there: the data
	 * really is spread over the nodes as the slots say.
	 */
	private static boolean keyExistsOnlyOnItsNode(String key) {
		int owner = redis.nodeOf(key);
		for (int node = 0; node < TestRedisCluster.NODES; node++) {
			if (node == owner) {
				if (!Long.valueOf(1).equals(redis.call(node, "EXISTS", key))) {
					return false;
				}
			}
			else {
				int other = node;
				assertThatThrownBy(() -> redis.call(other, "EXISTS", key)).hasMessageStartingWith("MOVED ");
			}
		}
		return true;
	}

	private static List<LimitRequest> requests(List<LimitDefinition> limits) {
		return limits.stream().map(LimitDefinition::request).toList();
	}

	private static String key(String client, LimitDefinition limit) {
		return new RedisKeys(RedisRateLimiter.DEFAULT_KEY_PREFIX).key(client, limit);
	}

	private static int admitted(String client, List<LimitDefinition> limits, int requests, long now) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			if (at(limiter, now).tryAcquire(client, requests(limits)).allowed()) {
				admitted++;
			}
		}
		return admitted;
	}

}
