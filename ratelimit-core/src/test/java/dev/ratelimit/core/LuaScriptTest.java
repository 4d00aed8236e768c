package dev.ratelimit.core;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisDataException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A decision's script holds only the algorithms of its limits (each algorithm a script holds costs Redis the making
 * of its functions on every call); the contract and reference tests run every algorithm and their combinations
 * through them.
 */
class LuaScriptTest {

	private final JedisPooled jedis = SharedJedis.get();

	@Test
	void aDecisionsScriptHoldsOnlyItsLimitsAlgorithms() {
		LuaScript tokenBucket = LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET));
		assertThat(tokenBucket.source()).contains("local function token_bucket(settling)")
			.doesNotContain("local function fixed_window(settling)")
			.doesNotContain("local function sliding_log(settling)");
		assertThat(LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET, Algorithm.SLIDING_LOG)).source())
			.contains("local function token_bucket(settling)", "local function sliding_log(settling)")
			.doesNotContain("local function fixed_window(settling)");
		assertThat(LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET, Algorithm.TOKEN_BUCKET))).isSameAs(tokenBucket);
		// calendar periods only where a limit counts them: a plain fixed window's script makes no calendar_window
		assertThat(LuaScript.rateLimit(EnumSet.allOf(Algorithm.class)).source())
			.doesNotContain("local function calendar_window(settling)");
		assertThat(LuaScript.rateLimit().source()).contains("local function calendar_window(settling)");
		LimitDefinition daily = LimitDefinition.calendar("daily", 5, CalendarPeriod.of(CalendarPeriod.Unit.DAY));
		assertThat(DecisionScripts.forLimits(List.of(daily.request())).source())
			.contains("local function calendar_window(settling)")
			.doesNotContain("local function fixed_window(settling)");
		assertThatIllegalArgumentException().isThrownBy(() -> LuaScript.rateLimit(List.of()));
	}

	@Test
	void aLimitOfAnAlgorithmTheScriptDoesNotHoldIsAnsweredAsUnknown() {
		LuaScript tokenBucket = LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET));
		assertThatExceptionOfType(JedisDataException.class)
			.isThrownBy(() -> this.jedis.eval(tokenBucket.source(), List.of("script-test:fw"),
					List.of("-1", "fw", "5", "1000", "5", "1", "0")))
			.withMessageContaining("unknown rate-limit algorithm fw");
		assertThat(this.jedis.eval(tokenBucket.source(), List.of("script-test:tb"),
				List.of("-1", "tb", "5", "1000", "5", "1", "0")))
			.asList()
			.first()
			.isEqualTo(1L);
	}

	@Test
	void aDecisionOfSeveralAlgorithmsRunsTheScriptOfThoseAlgorithms() {
		RateLimiter limiter = new RedisRateLimiter(new dev.ratelimit.core.redis.JedisScriptExecutor(this.jedis));
		List<LimitRequest> limits = List.of(
				LimitDefinition.of("script-a", Algorithm.SLIDING_LOG, 2, Duration.ofMinutes(1)).request(),
				LimitDefinition.of("script-b", Algorithm.CONCURRENCY, 1, Duration.ofMinutes(1)).request().withLease("x"));
		assertThat(limiter.tryAcquire("script-client", limits).allowed()).isTrue();
		String sha = LuaScript.rateLimit(List.of(Algorithm.SLIDING_LOG, Algorithm.CONCURRENCY)).sha1();
		assertThat(this.jedis.scriptExists(List.of(sha))).containsExactly(true);
	}

	@Test
	void onlyALimitThatRecordsUsageRunsTheScriptThatRecordsIt() {
		LimitDefinition plain = LimitDefinition.of("plain", Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
		LimitDefinition recording = plain.withUsage();
		LuaScript decision = DecisionScripts.forLimits(List.of(plain.request()));
		assertThat(decision).isEqualTo(LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET)));
		assertThat(decision.source()).doesNotContain("ZINCRBY");
		assertThat(LuaScript.forSettlements(List.of(new Settlement(plain.request(), 1, 2)))).isEqualTo(LuaScript.settle());
		assertThat(LuaScript.forSettlements(List.of(new Settlement(recording.request(), 1, 2))).source())
			.contains("ZINCRBY");
		assertThat(LuaScript.settle().source()).doesNotContain("ZINCRBY");

		LuaScript withUsage = DecisionScripts.forLimits(List.of(plain.request(), recording.request()));
		assertThat(withUsage.source()).contains("ZINCRBY");
		assertThat(withUsage).isNotEqualTo(decision);
	}

}
