package dev.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.JedisClusterCRC16;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The common rules of {@code docs/ALGORITHMS.md}, written once and run for every algorithm against a real Redis.
 */
class AlgorithmContractTest {

	private static final long T0 = 1_791_860_000_000L;

	private static final AtomicInteger PREFIXES = new AtomicInteger();

	private static JedisPooled jedis;

	private String prefix;

	private RateLimiter limiter;

	@BeforeAll
	static void connect() {
		TestRedis redis = TestRedis.shared();
		jedis = new JedisPooled(redis.host(), redis.port());
	}

	@AfterAll
	static void disconnect() {
		jedis.close();
	}

	@BeforeEach
	void newLimiter() {
		this.prefix = "contract" + PREFIXES.incrementAndGet() + ":";
		this.limiter = new RedisRateLimiter(new JedisScriptExecutor(jedis), this.prefix);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void deniedRequestConsumesNothing(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		exhaust(limit, T0 + 100);
		String key = onlyKey();
		byte[] before = jedis.dump(key);
		long ttlBefore = jedis.pttl(key);

		RateLimitDecision denied = this.limiter.tryAcquire("client", limit, T0 + 100);

		assertThat(denied.allowed()).isFalse();
		assertThat(jedis.dump(key)).isEqualTo(before);
		assertThat(jedis.pttl(key)).isLessThanOrEqualTo(ttlBefore);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void everyKeyHasTimeToLiveAfterEveryCall(Algorithm algorithm) {
		SplittableRandom random = new SplittableRandom(42);
		LimitDefinition limit = limit(algorithm, 4, 500);
		long now = T0;
		for (int i = 0; i < 300; i++) {
			now += random.nextInt(0, 120);
			this.limiter.tryAcquire("client" + random.nextInt(3), limit.withCost(random.nextInt(1, 4)), now);
			for (String key : keys()) {
				// Explicit time runs ahead of Redis' own clock, which expires keys: a key whose TTL is 1 ms may be
				// gone (-2) by the time it is read. What must never happen is a key without TTL (-1).
				assertThat(jedis.pttl(key)).as("TTL of %s after call %d", key, i)
					.isNotEqualTo(-1L)
					.isLessThanOrEqualTo(2 * 500 + 1000);
			}
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void retryAfterIsTight(Algorithm algorithm) {
		SplittableRandom random = new SplittableRandom(7);
		LimitDefinition limit = limit(algorithm, 6, 1000);
		long now = T0;
		int checked = 0;
		for (int i = 0; i < 400; i++) {
			now += random.nextInt(0, 90);
			LimitDefinition request = limit.withCost(random.nextInt(1, 4));
			RateLimitDecision decision = this.limiter.tryAcquire("client", request, now);
			if (!decision.allowed()) {
				long retryAfter = decision.retryAfterMs();
				assertThat(retryAfter).isPositive();
				assertThat(this.limiter.tryAcquire("client", request, now + retryAfter - 1).allowed())
					.as("retry after %d - 1 ms at step %d", retryAfter, i)
					.isFalse();
				assertThat(this.limiter.tryAcquire("client", request, now + retryAfter).allowed())
					.as("retry after %d ms at step %d", retryAfter, i)
					.isTrue();
				now += retryAfter;
				checked++;
			}
		}
		assertThat(checked).isGreaterThan(20);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void requestsSharingOneMillisecondAreAllCounted(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		int admitted = 0;
		for (int i = 0; i < 25; i++) {
			if (this.limiter.tryAcquire("client", limit, T0 + 500).allowed()) {
				admitted++;
			}
		}
		assertThat(admitted).isEqualTo(10);
		if (algorithm == Algorithm.SLIDING_LOG) {
			assertThat(jedis.zcard(onlyKey())).isEqualTo(10);
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void costAboveOneTakesThatManyUnits(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		for (int i = 0; i < 3; i++) {
			RateLimitDecision decision = this.limiter.tryAcquire("client", limit.withCost(3), T0);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(10 - 3 * (i + 1));
		}
		assertThat(this.limiter.tryAcquire("client", limit.withCost(3), T0).allowed()).isFalse();
		RateLimitDecision last = this.limiter.tryAcquire("client", limit, T0);
		assertThat(last.allowed()).isTrue();
		assertThat(last.remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void costAboveTheLimitIsNeverAdmittedAndConsumesNothing(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		assertThatIllegalArgumentException().isThrownBy(() -> limit.withCost(11).requireCostFits())
			.withMessageContaining("cost 11")
			.withMessageContaining("never");

		RateLimitDecision decision = this.limiter.tryAcquire("client", limit.withCost(11), T0);

		assertThat(decision.allowed()).isFalse();
		assertThat(decision.never()).isTrue();
		assertThat(decision.retryAfterMs()).isEqualTo(LimitDecision.NEVER);
		assertThat(decision.remaining()).isEqualTo(10);
		assertThat(keys()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void timeGoingBackwardsNeitherRefillsNorMovesStoredTime(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		long late = T0 + 10_500;
		exhaust(limit, late);
		String key = onlyKey();
		byte[] state = jedis.dump(key);

		for (long earlier : new long[] { late - 1, late - 600, late - 5_000, T0 }) {
			RateLimitDecision decision = this.limiter.tryAcquire("client", limit, earlier);
			assertThat(decision.allowed()).as("request at %d ms before the last", late - earlier).isFalse();
			assertThat(decision.retryAfterMs()).isPositive();
		}
		assertThat(jedis.dump(key)).isEqualTo(state);
		// The limiter carries on from the latest time it saw.
		RateLimitDecision next = this.limiter.tryAcquire("client", limit, late);
		assertThat(this.limiter.tryAcquire("client", limit, late + next.retryAfterMs()).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void limitsWithDifferentNamesDoNotShareState(Algorithm algorithm) {
		LimitDefinition first = LimitDefinition.of("first", algorithm, 3, Duration.ofSeconds(1));
		LimitDefinition second = LimitDefinition.of("second", algorithm, 3, Duration.ofSeconds(1));
		exhaust(first, T0);
		RateLimitDecision decision = this.limiter.tryAcquire("client", second, T0);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(2);
		assertThat(this.limiter.tryAcquire("other-client", first, T0).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void scriptFlushBetweenCallsIsRecoveredOnTheSameCall(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 3, 1000);
		assertThat(this.limiter.tryAcquire("client", limit, T0).remaining()).isEqualTo(2);
		jedis.scriptFlush();
		assertThat(this.limiter.tryAcquire("client", limit, T0).remaining()).isEqualTo(1);
		jedis.scriptFlush();
		assertThat(this.limiter.tryAcquire("client", limit, T0).remaining()).isZero();
		assertThat(this.limiter.tryAcquire("client", limit, T0).allowed()).isFalse();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void severalLimitsOnOneRequestAreAllOrNothing(Algorithm algorithm) {
		LimitDefinition perSecond = LimitDefinition.of("per-second", algorithm, 2, Duration.ofSeconds(1));
		LimitDefinition perHour = LimitDefinition.of("per-hour", Algorithm.SLIDING_LOG, 10, Duration.ofHours(1));
		List<LimitDefinition> both = List.of(perSecond, perHour);
		assertThat(this.limiter.tryAcquire("client", both, T0).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("client", both, T0).allowed()).isTrue();

		RateLimitDecision denied = this.limiter.tryAcquire("client", both, T0);

		assertThat(denied.allowed()).isFalse();
		assertThat(denied.violated()).extracting((d) -> d.limit().name()).containsExactly("per-second");
		assertThat(denied.decisions().get(1).allowed()).isTrue();
		assertThat(denied.decisions().get(1).remaining()).isEqualTo(8);
		// The per-hour limit took nothing from the denied request.
		assertThat(this.limiter.tryAcquire("client", perHour, T0).remaining()).isEqualTo(7);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void keysShareOneHashTagPerClientAndHideTheClientId(Algorithm algorithm) {
		String secret = "api-key-{0}:secret";
		this.limiter.tryAcquire(secret, List.of(limit(algorithm, 3, 1000), LimitDefinition.of("other", Algorithm.TOKEN_BUCKET, 3, Duration.ofSeconds(1))), T0);
		List<String> keys = keys();
		assertThat(keys).hasSize(2);
		assertThat(keys).allSatisfy((key) -> assertThat(key).doesNotContain("secret").doesNotContain("api-key"));
		assertThat(keys.stream().map((key) -> key.substring(key.indexOf('{'), key.indexOf('}') + 1)).distinct()).hasSize(1);
		assertThat(keys.stream().map(JedisClusterCRC16::getSlot).distinct().toList()).hasSize(1);
	}

	private LimitDefinition limit(Algorithm algorithm, long limit, long windowMs) {
		return LimitDefinition.of("limit", algorithm, limit, Duration.ofMillis(windowMs));
	}

	private void exhaust(LimitDefinition limit, long now) {
		int admitted = 0;
		while (this.limiter.tryAcquire("client", limit, now).allowed()) {
			admitted++;
		}
		assertThat(admitted).isEqualTo(limit.limit());
	}

	private String onlyKey() {
		List<String> keys = keys();
		assertThat(keys).hasSize(1);
		return keys.get(0);
	}

	private List<String> keys() {
		List<String> keys = new ArrayList<>();
		String cursor = ScanParams.SCAN_POINTER_START;
		do {
			ScanResult<String> page = jedis.scan(cursor, new ScanParams().match(this.prefix + "*").count(1000));
			keys.addAll(page.getResult());
			cursor = page.getCursor();
		}
		while (!cursor.equals(ScanParams.SCAN_POINTER_START));
		return keys;
	}

}
