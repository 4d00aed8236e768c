package dev.ratelimit.core;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.CalendarPeriod.Unit;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CalendarWindowContract} on a real Redis, and what only the script does: it counts in the period that holds
 * its own time, of the bounds the application computed around another clock.
 */
class RedisCalendarWindowTest extends CalendarWindowContract {

	private static final AtomicInteger PREFIXES = new AtomicInteger();

	private static final JedisPooled jedis = SharedJedis.get();

	private String prefix;

	@Override
	RateLimiter newLimiter() {
		this.prefix = "calendar" + PREFIXES.incrementAndGet() + ":";
		return new RedisRateLimiter(new JedisScriptExecutor(jedis), this.prefix);
	}

	@Override
	long ttlAfter(String client, LimitDefinition limit, long now) {
		// the TTL is relative to the request's explicit time, and Redis counts it down on its own clock
		String key = new RedisKeys(this.prefix).key(client, limit);
		assertThat(key).endsWith(":quota:fw:cal");
		return jedis.pttl(key);
	}

	@Test
	void theScriptCountsInThePeriodOfItsOwnTimeAcrossTheBoundsOfAnotherClock() {
		LimitDefinition daily = LimitDefinition.calendar("daily", 1, CalendarPeriod.of(Unit.DAY, BERLIN));
		String key = new RedisKeys(this.prefix).key("client", daily);
		// the application's clock 2 s before midnight in Berlin, Redis' clock 1 s after it
		long application = Instant.parse("2026-12-07T22:59:58Z").toEpochMilli();
		long redis = Instant.parse("2026-12-07T23:00:01Z").toEpochMilli();
		long[] b = daily.calendar().bounds(application);
		String bounds = b[0] + " " + b[1] + " " + b[2] + " " + b[3];
		JedisScriptExecutor executor = new JedisScriptExecutor(jedis);
		List<String> args = List.of(Long.toString(redis), "fc", "1", Long.toString(daily.windowMs()), bounds, "1", "0");
		LuaScript script = DecisionScripts.forLimits(List.of(daily.request()));

		List<Long> first = executor.execute(script, List.of(key), args);
		// admitted in Berlin's new day, which ends a day after Redis' midnight
		assertThat(first.get(0)).isEqualTo(1);
		assertThat(first.get(3)).isEqualTo(86_400_000L - 1000);
		assertThat(jedis.get(key)).isEqualTo(Instant.parse("2026-12-07T23:00:00Z").toEpochMilli() + " "
				+ Instant.parse("2026-12-08T23:00:00Z").toEpochMilli() + " 1 " + redis);

		// Redis' clock 2 s before midnight with the application's 1 s after it: the old day, already counted elsewhere
		long[] next = daily.calendar().bounds(redis);
		List<Long> behind = executor.execute(script, List.of(key + "-2"), List.of(Long.toString(application), "fc",
				"1", Long.toString(daily.windowMs()), next[0] + " " + next[1] + " " + next[2] + " " + next[3], "1", "0"));
		assertThat(behind.get(0)).isEqualTo(1);
		assertThat(behind.get(3)).isEqualTo(2000);
	}

}
