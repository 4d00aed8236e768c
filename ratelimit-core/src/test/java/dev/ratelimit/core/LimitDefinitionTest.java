package dev.ratelimit.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LimitDefinitionTest {

	private static final Duration SECOND = Duration.ofSeconds(1);

	@Test
	void rejectsValuesBelowOneNamingTheField() {
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 0, SECOND))
			.withMessage("limit of rate limit 'api' must be at least 1, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 5, SECOND).request(0))
			.withMessageStartingWith("cost of rate limit 'api'");
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 5, SECOND).withCapacity(-1))
			.withMessageStartingWith("capacity of rate limit 'api'");
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("api", Algorithm.SLIDING_LOG, 5, Duration.ZERO))
			.withMessageStartingWith("window of rate limit 'api' must be at least 1 ms");
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("api", Algorithm.SLIDING_LOG, 5, Duration.ofNanos(1_500_000)))
			.withMessageContaining("whole number of ms");
	}

	@Test
	void theExceptionNamesTheFieldAtFaultForConfigurationToNameItsProperty() {
		assertThat(field(() -> LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 0, SECOND))).isEqualTo("limit");
		assertThat(field(() -> LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 5, SECOND).request(0))).isEqualTo("cost");
		assertThat(field(() -> LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 5, SECOND).request(6).requireCostFits()))
			.isEqualTo("cost");
		assertThat(field(() -> LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 5, SECOND).withCapacity(0)))
			.isEqualTo("capacity");
		assertThat(field(() -> LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 5, SECOND).withCapacity(20)))
			.isEqualTo("capacity");
		assertThat(field(() -> LimitDefinition.of("api", Algorithm.SLIDING_LOG, 5, Duration.ZERO))).isEqualTo("window");
		assertThat(field(() -> LimitDefinition.of("api", Algorithm.SLIDING_LOG, 10_001, SECOND))).isEqualTo("limit");
		assertThat(field(() -> LimitDefinition.of("a b", Algorithm.FIXED_WINDOW, 5, SECOND))).isEqualTo("name");
	}

	private static String field(Runnable invalid) {
		try {
			invalid.run();
		}
		catch (InvalidLimitException ex) {
			return ex.getField();
		}
		throw new AssertionError("no InvalidLimitException");
	}

	@Test
	void rejectsNamesThatWouldBreakTheKeyLayout() {
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("a{b}", Algorithm.FIXED_WINDOW, 5, SECOND))
			.withMessageContaining("braces");
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of(" ", Algorithm.FIXED_WINDOW, 5, SECOND));
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("配额", Algorithm.FIXED_WINDOW, 5, SECOND))
			.withMessageContaining("printable ASCII");
		assertThatIllegalArgumentException().isThrownBy(() -> new RedisRateLimiter((script, keys, args) -> null, "rl:{x}:"))
			.withMessageContaining("key prefix");
	}

	@Test
	void capacityIsForTheTokenBucketOnly() {
		assertThat(LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 5, SECOND).withCapacity(20).capacity()).isEqualTo(20);
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 5, SECOND).withCapacity(20))
			.withMessageContaining("token bucket only");
	}

	@Test
	void rejectsNumbersBeyondLuasExactIntegerRange() {
		Duration day = Duration.ofDays(1);
		assertThat(LimitDefinition.of("ok", Algorithm.TOKEN_BUCKET, 10_000_000L, day).limit()).isEqualTo(10_000_000L);
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("big", Algorithm.TOKEN_BUCKET, 100_000_000L, day))
			.withMessageContaining("exact integer range");
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("big", Algorithm.TOKEN_BUCKET, 10, day).withCapacity(Long.MAX_VALUE / 2))
			.withMessageContaining("exact integer range");
		// the cost is the call's, checked where it is given
		assertThat(LimitDefinition.of("ok", Algorithm.TOKEN_BUCKET, 10, day).request(10_000_000L).cost()).isEqualTo(10_000_000L);
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("big", Algorithm.TOKEN_BUCKET, 10, day).request(100_000_000L))
			.withMessageStartingWith("cost of rate limit 'big' leaves Lua's exact integer range");
		assertThat(field(() -> LimitDefinition.of("big", Algorithm.TOKEN_BUCKET, 10, day).request(100_000_000L))).isEqualTo("cost");
	}

	@Test
	void windowsOfCenturiesAreMillisecondsAndLongerOnesAreRejected() {
		// 300 years: beyond a count of nanoseconds (292 years), well within the exact range in ms
		Duration centuries = Duration.ofDays(365L * 300);
		assertThat(LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 1, centuries).windowMs())
			.isEqualTo(365L * 300 * 24 * 3600 * 1000);
		// a billion years: beyond any count of milliseconds the scripts can use
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 1, Duration.ofDays(365L * 1_000_000_000L)))
			.withMessageStartingWith("window of rate limit 'api' leaves Lua's exact integer range");
	}

	@Test
	void slidingLogLimitIsBoundedByItsMemory() {
		assertThat(LimitDefinition.of("log", Algorithm.SLIDING_LOG, 10_000, SECOND).limit()).isEqualTo(10_000);
		assertThatIllegalArgumentException().isThrownBy(() -> LimitDefinition.of("log", Algorithm.SLIDING_LOG, 10_001, SECOND))
			.withMessageStartingWith("limit of rate limit 'log' must be at most 10000 for the sliding log");
	}

	@Test
	void staticCostAboveTheLimitOrCapacityIsRejected() {
		LimitDefinition bucket = LimitDefinition.of("reports", Algorithm.TOKEN_BUCKET, 10, SECOND).withCapacity(20);
		assertThat(bucket.request(15).requireCostFits().cost()).isEqualTo(15);
		assertThatIllegalArgumentException().isThrownBy(() -> bucket.request(21).requireCostFits())
			.withMessage("cost 21 of rate limit 'reports' exceeds its capacity 20: such a request could never be admitted");
	}

	@Test
	void limiterRejectsTwoLimitsWithOneName() {
		RedisRateLimiter limiter = new RedisRateLimiter((script, keys, args) -> null);
		LimitDefinition limit = LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 5, SECOND);
		assertThatIllegalArgumentException().isThrownBy(() -> at(limiter, 0).tryAcquire("client", java.util.List.of(limit.request(), limit.request(3))))
			.withMessageContaining("'api' appears twice");
	}

	@Test
	void usageIsPerTheLimitsOwnCalendarPeriodElsePerMonthInUtcAndNeverForAConcurrencyLimit() {
		CalendarPeriod berlinDay = CalendarPeriod.of(CalendarPeriod.Unit.DAY, java.time.ZoneId.of("Europe/Berlin"));
		assertThat(LimitDefinition.calendar("quota", 10, berlinDay).withUsage().usage())
			.isEqualTo(new UsageRecording(berlinDay, UsageRecording.DEFAULT_MAX_CLIENTS));
		LimitDefinition api = LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
		assertThat(api.withUsage().usage().period()).isEqualTo(CalendarPeriod.of(CalendarPeriod.Unit.MONTH));
		assertThat(api.withUsage().withCapacity(20).usage()).isNotNull();
		assertThat(api.usage()).isNull();

		assertThatIllegalArgumentException()
			.isThrownBy(() -> LimitDefinition.of("calls", Algorithm.CONCURRENCY, 5, Duration.ofSeconds(30)).withUsage())
			.isInstanceOfSatisfying(InvalidLimitException.class, (ex) -> assertThat(ex.getField()).isEqualTo("usage"))
			.withMessageContaining("concurrency limit 'calls' records no usage");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> UsageRecording.of(berlinDay).withMaxClients(0))
			.withMessageContaining("1 to 10000000");
	}

}
