package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.util.JedisClusterCRC16;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AlgorithmContract} on a real Redis, reading state as Redis holds it ({@code DUMP} of the key, its
 * {@code PTTL}, {@code SCAN} of the test's prefix), and the rules only Redis has: script cache flushes, keys and
 * hash tags.
 */
class RedisAlgorithmContractTest extends AlgorithmContract {

	private static final AtomicInteger PREFIXES = new AtomicInteger();

	private static final JedisPooled jedis = SharedJedis.get();

	private String prefix;

	/** A key's serialized value and its TTL in ms when it was read. */
	private record KeyState(String key, byte[] dump, long pttl) {
	}

	@Override
	RateLimiter newLimiter() {
		this.prefix = "contract" + PREFIXES.incrementAndGet() + ":";
		return new RedisRateLimiter(new JedisScriptExecutor(jedis), this.prefix);
	}

	@Override
	Object state(String client, LimitDefinition limit) {
		String key = new RedisKeys(this.prefix).key(client, limit);
		assertThat(keys()).contains(key);
		return new KeyState(key, jedis.dump(key), jedis.pttl(key));
	}

	@Override
	void assertSameState(Object before, Object after, String description) {
		KeyState was = (KeyState) before;
		KeyState is = (KeyState) after;
		assertThat(is.key()).isEqualTo(was.key());
		assertThat(is.dump()).as("DUMP of %s %s", is.key(), description).isEqualTo(was.dump());
		// Redis counts the TTL down on its own clock: never extended, never removed
		assertThat(is.pttl()).as("PTTL of %s %s", is.key(), description).isBetween(0L, was.pttl());
	}

	@Override
	void assertNothingStored() {
		assertThat(keys()).isEmpty();
	}

	@Override
	void assertEveryStateExpires(List<String> clients, String decided, boolean admitted, LimitDefinition limit,
			long now, long maxTtlMs, String description) {
		List<String> keys = keys();
		assertThat(keys).as("keys after %s", description).hasSizeLessThanOrEqualTo(clients.size());
		for (String key : keys) {
			// Explicit time runs ahead of Redis' own clock, which expires keys: a key whose TTL is 1 ms may be
			// gone (-2) by the time it is read. What must never happen is a key without TTL (-1).
			assertThat(jedis.pttl(key)).as("TTL of %s after %s", key, description)
				.isNotEqualTo(-1L)
				.isLessThanOrEqualTo(maxTtlMs);
		}
		if (admitted) {
			// every TTL the scripts set has the 1 s margin: the key just written is still there
			String key = new RedisKeys(this.prefix).key(decided, limit);
			assertThat(jedis.pttl(key)).as("TTL of %s just written by %s", key, description).isPositive();
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void eachLimitIsOneKeyAndTheSlidingLogOneMemberPerUnit(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		for (int i = 0; i < 25; i++) {
			at(this.limiter, T0 + 500).tryAcquire("client", limit);
		}
		List<String> keys = keys();
		assertThat(keys).hasSize(1);
		if (algorithm == Algorithm.SLIDING_LOG) {
			assertThat(jedis.zcard(keys.get(0))).isEqualTo(10);
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void scriptFlushBetweenCallsIsRecoveredOnTheSameCall(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 3, 1000);
		assertThat(at(this.limiter, T0).tryAcquire("client", limit).remaining()).isEqualTo(2);
		jedis.scriptFlush();
		assertThat(at(this.limiter, T0).tryAcquire("client", limit).remaining()).isEqualTo(1);
		jedis.scriptFlush();
		assertThat(at(this.limiter, T0).tryAcquire("client", limit).remaining()).isZero();
		assertThat(at(this.limiter, T0).tryAcquire("client", limit).allowed()).isFalse();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void keysShareOneHashTagPerClientAndHideTheClientId(Algorithm algorithm) {
		String secret = "api-key-{0}:secret";
		at(this.limiter, T0).tryAcquire(secret, List.of(limit(algorithm, 3, 1000).request(), LimitDefinition.of("other", Algorithm.TOKEN_BUCKET, 3, Duration.ofSeconds(1)).request()));
		List<String> keys = keys();
		assertThat(keys).hasSize(2);
		assertThat(keys).allSatisfy((key) -> assertThat(key).doesNotContain("secret").doesNotContain("api-key"));
		assertThat(keys.stream().map((key) -> key.substring(key.indexOf('{'), key.indexOf('}') + 1)).distinct()).hasSize(1);
		assertThat(keys.stream().map(JedisClusterCRC16::getSlot).distinct().toList()).hasSize(1);
	}

	@Test
	void resetAllLeavesEveryKeyOutsideTheClientsStatesAlone() {
		LimitDefinition limit = limit(Algorithm.TOKEN_BUCKET, 3, 1000);
		exhaust("client", limit, T0);
		// the starter's overrides under the same prefix, a key of the application's own, another limiter's state
		jedis.hset(this.prefix + "{overrides}", "#version", "1");
		jedis.set(this.prefix + "application", "kept");
		RateLimiter another = new RedisRateLimiter(new JedisScriptExecutor(jedis), "x" + this.prefix);
		at(another, T0).tryAcquire("client", limit);
		try {
			assertThat(this.limiter.resetAll()).isEqualTo(1);

			assertThat(keys()).containsExactlyInAnyOrder(this.prefix + "{overrides}", this.prefix + "application");
			assertThat(at(another, T0).peek("client", limit.request()).remaining()).isEqualTo(2);
		}
		finally {
			jedis.del(this.prefix + "{overrides}", this.prefix + "application", new RedisKeys("x" + this.prefix).key("client", limit));
		}
	}

	@Test
	void resetAllScansInBatchesUntilEveryStateIsGone() {
		LimitDefinition limit = limit(Algorithm.FIXED_WINDOW, 3, 60_000);
		for (int i = 0; i < 2500; i++) {
			at(this.limiter, T0).tryAcquire("client-" + i, limit);
		}
		assertThat(this.limiter.resetAll()).isEqualTo(2500);
		assertThat(keys()).isEmpty();
	}

	@Test
	void resetAllMatchesThePrefixLiterallyThoughItHasGlobCharacters() {
		String glob = "g*[a]?" + this.prefix;
		RateLimiter globbed = new RedisRateLimiter(new JedisScriptExecutor(jedis), glob);
		RateLimiter literal = new RedisRateLimiter(new JedisScriptExecutor(jedis), "gxay" + this.prefix);
		LimitDefinition limit = limit(Algorithm.FIXED_WINDOW, 3, 60_000);
		at(globbed, T0).tryAcquire("client", limit);
		at(literal, T0).tryAcquire("client", limit);
		try {
			assertThat(globbed.resetAll()).isEqualTo(1);
			assertThat(at(literal, T0).peek("client", limit.request()).remaining()).isEqualTo(2);
		}
		finally {
			literal.resetAll();
		}
	}

	private List<String> keys() {
		return SharedJedis.keys(jedis, this.prefix);
	}

}
