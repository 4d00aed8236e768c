package dev.ratelimit.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.Usage.Period;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link UsageContract} on a real Redis, and what only the scripts show: no usage key and no client id in clear text
 * for a limit that does not opt in, a TTL on every key written, the period chosen by the script's own time, and the
 * in-memory backend agreeing on the same traffic.
 */
class RedisUsageTest extends UsageContract {

	private static final AtomicInteger PREFIXES = new AtomicInteger();

	private static final JedisPooled jedis = SharedJedis.get();

	private String prefix;

	@Override
	RateLimiter newLimiter() {
		this.prefix = "usage" + PREFIXES.incrementAndGet() + ":";
		return new RedisRateLimiter(new JedisScriptExecutor(jedis), this.prefix);
	}

	@Override
	long usageTtlAfter(LimitDefinition limit, long start, long end, long now) {
		String key = new RedisKeys(this.prefix).usageKey(limit.name(), start, end, -1);
		assertThat(key).isEqualTo(this.prefix + "usage:" + limit.name() + ":" + start + "-" + end);
		return jedis.pttl(key);
	}

	private Set<String> keys() {
		return new HashSet<>(SharedJedis.keys(jedis, this.prefix));
	}

	@Test
	void aLimitWithoutUsageWritesNoUsageKeyAndNoClientIdInClearText() {
		String client = "key:secret-api-key-42";
		List<LimitRequest> limits = new ArrayList<>();
		for (Algorithm algorithm : List.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG,
				Algorithm.SLIDING_WINDOW_COUNTER, Algorithm.TOKEN_BUCKET)) {
			limits.add(LimitDefinition.of("plain-" + algorithm.code(), algorithm, 10, Duration.ofHours(1)).request(2));
		}
		limits.add(LimitDefinition.calendar("plain-daily", 10, CalendarPeriod.of(CalendarPeriod.Unit.DAY)).request(2));
		RateLimitDecision decision = decide(DEC_15, client, limits.toArray(LimitRequest[]::new));
		assertThat(decision.allowed()).isTrue();
		List<Settlement> settlements = decision.decisions().stream().map((d) -> Settlement.of(d, 7)).toList();
		at(this.limiter, DEC_15).settle(client, settlements);

		Set<String> keys = keys();
		assertThat(keys).hasSize(5).noneMatch((key) -> key.contains(":usage:") || key.contains("secret"));
		for (String key : keys) {
			String type = jedis.type(key);
			List<String> values = type.equals("zset") ? jedis.zrange(key, 0, -1) : List.of(jedis.get(key));
			assertThat(values).as(key).noneMatch((value) -> value.contains("secret"));
		}
	}

	@Test
	void everyKeyWrittenHasATimeToLive() {
		LimitDefinition capped = LimitDefinition.of("capped", Algorithm.SLIDING_LOG, 100, Duration.ofHours(1))
			.withUsage(UsageRecording.of(CalendarPeriod.of(CalendarPeriod.Unit.WEEK)).withMaxClients(3));
		for (int i = 0; i < 6; i++) {
			LimitDecision reserved = decide(DEC_15, "key:" + i, capped.request(2), API.request()).decisions().get(0);
			at(this.limiter, JAN_15).settle("key:" + i, List.of(Settlement.of(reserved, 5)));
			at(this.limiter, JAN_15).settle("key:" + i, List.of(Settlement.of(reserved, 0)));
		}
		// December's week and month, January's week (the charges settled then); the refunds, of December's week,
		// are older than January's previous week: they write nothing
		Set<String> keys = keys();
		assertThat(keys).filteredOn((key) -> key.contains(":usage:")).hasSize(3);
		for (String key : keys) {
			assertThat(jedis.pttl(key)).as(key).isPositive();
		}
		assertThat(at(this.limiter, DEC_15).usage(capped, Period.CURRENT, 0, 10).overflowUnits()).isEqualTo(6);
		assertThat(at(this.limiter, JAN_15).usage(capped, Period.CURRENT, 0, 10).overflowUnits()).isEqualTo(9);
	}

	@Test
	void theScriptCountsInThePeriodOfItsOwnTimeAcrossTheBoundsOfAnotherClock() {
		// the application's clock 2 s before the new year, Redis' clock 1 s after it
		long application = JAN_1 - 2000;
		long redis = JAN_1 + 1000;
		RedisKeys keys = new RedisKeys(this.prefix);
		List<String> scriptKeys = new ArrayList<>(List.of(keys.key("key:a", API)));
		List<String> args = new ArrayList<>(List.of(Long.toString(redis), "fw", "10", "3600000", "10", "4", "0"));
		List<String> arguments = new ArrayList<>(List.of(Long.toString(application)));
		new RedisUsage(keys, false).append("key:a", List.of(API.request(4)), scriptKeys, arguments);
		args.addAll(arguments.subList(1, arguments.size()));
		List<Long> reply = new JedisScriptExecutor(jedis).execute(DecisionScripts.forLimits(List.of(API.request(4))),
				scriptKeys, args);
		assertThat(reply.get(0)).isEqualTo(1);

		assertThat(usage(JAN_15, API, Period.CURRENT).entries()).containsExactly(new ClientUsage("key:a", 4));
		assertThat(usage(JAN_15, API, Period.PREVIOUS).entries()).isEmpty();
		// the next period's set lives until the end of the period after it
		assertThat(jedis.pttl(keys.usageKey("api", JAN_1, FEB_1, -1))).isBetween(MAR_1 - redis - 60_000,
				MAR_1 - redis + 1000);
	}

	@Test
	void redisAndMemoryAgreeOnTheSameTraffic() {
		InMemoryRateLimiter memory = new InMemoryRateLimiter(Clock.fixed(Instant.ofEpochMilli(DEC_1), ZoneOffset.UTC));
		LimitDefinition bucket = LimitDefinition.of("bucket", Algorithm.TOKEN_BUCKET, 20, Duration.ofSeconds(10))
			.withUsage(UsageRecording.of(CalendarPeriod.of(CalendarPeriod.Unit.DAY)).withMaxClients(6));
		LimitDefinition window = LimitDefinition.of("window", Algorithm.SLIDING_WINDOW_COUNTER, 30, Duration.ofMinutes(1))
			.withUsage(UsageRecording.of(CalendarPeriod.of(CalendarPeriod.Unit.DAY)));
		Random random = new Random(42);
		// about 200 s from 2 minutes before midnight: both days hold usage
		long now = ms("2026-12-15T23:58:00Z");
		for (int i = 0; i < 2000; i++) {
			now += random.nextInt(200);
			String client = "key:" + random.nextInt(9);
			List<LimitRequest> limits = List.of(bucket.request(1 + random.nextInt(5)),
					window.request(1 + random.nextInt(3)).withShadow(random.nextBoolean()));
			RateLimitDecision onRedis = at(this.limiter, now).tryAcquire(client, limits);
			RateLimitDecision inMemory = at(memory, now).tryAcquire(client, limits);
			assertThat(inMemory.allowed()).as("decision %d", i).isEqualTo(onRedis.allowed());
			if (onRedis.allowed() && random.nextInt(4) == 0) {
				LimitDecision reserved = onRedis.decisions().get(0);
				List<Settlement> settled = List.of(Settlement.of(reserved, random.nextInt(12)));
				long at = now + random.nextInt(2000);
				at(this.limiter, at).settle(client, settled);
				at(memory, at).settle(client, settled);
			}
		}
		for (LimitDefinition limit : List.of(bucket, window)) {
			for (Period period : Period.values()) {
				for (int page = 0; page < 3; page++) {
					Usage expected = at(this.limiter, now).usage(limit, period, page, 4);
					assertThat(at(memory, now).usage(limit, period, page, 4)).as("%s %s page %d", limit.name(), period, page)
						.isEqualTo(expected);
				}
			}
		}
		assertThat(at(this.limiter, now).usage(bucket, Period.PREVIOUS, 0, 10).overflowUnits()).isPositive();
	}

}
