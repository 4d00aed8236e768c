package dev.ratelimit.core;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.stream.Stream;

import dev.ratelimit.core.CalendarPeriod.Unit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calendar periods (docs/ALGORITHMS.md, "Calendar periods") on one backend, with explicit time: the reference
 * table's instants around daylight-saving changes, month ends and leap years; the count carried across a change of
 * zone or unit; a lagging clock; settlements; every state expiring at its period's end.
 */
abstract class CalendarWindowContract {

	static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	RateLimiter limiter;

	abstract RateLimiter newLimiter();

	/**
	 * The state's time to live in ms after a request at {@code now}, as the backend counts it (Redis: PTTL on its own
	 * clock, which runs elsewhere than {@code now}; in memory: the deadline on the limiter's clock).
	 */
	abstract long ttlAfter(String client, LimitDefinition limit, long now);

	@BeforeEach
	void newLimiterForTheTest() {
		this.limiter = newLimiter();
	}

	/** docs/ALGORITHMS.md's reference table: the instant, the period, and the reset-after of a counted request. */
	static Stream<Arguments> referenceTable() {
		return Stream.of(
				Arguments.of("2026-12-07T23:00:30Z", new CalendarPeriod(Unit.DAY, BERLIN, DayOfWeek.MONDAY), 86_370_000L),
				Arguments.of("2026-03-29T12:00:00Z", CalendarPeriod.of(Unit.DAY, BERLIN), 36_000_000L),
				Arguments.of("2026-10-25T00:30:00Z", CalendarPeriod.of(Unit.DAY, BERLIN), 81_000_000L),
				Arguments.of("2028-02-28T12:00:00Z", CalendarPeriod.of(Unit.MONTH), 129_600_000L),
				Arguments.of("2027-02-28T12:00:00Z", CalendarPeriod.of(Unit.MONTH), 43_200_000L),
				Arguments.of("2026-11-01T12:00:00Z",
						new CalendarPeriod(Unit.WEEK, ZoneId.of("America/New_York"), DayOfWeek.SUNDAY), 579_600_000L),
				Arguments.of("2026-12-31T15:00:00Z", CalendarPeriod.of(Unit.YEAR, ZoneId.of("Asia/Tokyo")),
						31_536_000_000L),
				Arguments.of("2026-09-06T12:00:00Z", CalendarPeriod.of(Unit.DAY, ZoneId.of("America/Santiago")),
						54_000_000L));
	}

	@ParameterizedTest
	@MethodSource("referenceTable")
	void theReferenceTableResetsAtThePeriodsEnd(String instant, CalendarPeriod period, long resetAfterMs) {
		LimitDefinition quota = LimitDefinition.calendar("quota", 1000, period);
		long now = Instant.parse(instant).toEpochMilli();

		LimitDecision first = at(this.limiter, now).tryAcquire("client", List.of(quota.request())).decisions().get(0);
		assertThat(first.allowed()).isTrue();
		assertThat(first.resetAfterMs()).as("reset after a request at %s, %s", instant, period).isEqualTo(resetAfterMs);
		assertThat(first.moreAfterMs()).isEqualTo(resetAfterMs);
		assertThat(first.remaining()).isEqualTo(999);
		// the state lives until the period ends, and not much longer (the scripts' 1 s margin)
		assertThat(ttlAfter("client", quota, now)).isBetween(resetAfterMs - 60_000, resetAfterMs + 1000);

		// the last millisecond of the period still counts the request; its end starts a fresh budget
		long end = now + resetAfterMs;
		assertThat(at(this.limiter, end - 1).tryAcquire("client", List.of(quota.request(1000))).allowed()).isFalse();
		LimitDecision next = at(this.limiter, end).tryAcquire("client", List.of(quota.request(1000))).decisions().get(0);
		assertThat(next.allowed()).isTrue();
		assertThat(next.remaining()).isZero();
	}

	@Test
	void aDailyQuotaInBerlinResetsAtMidnightThereNotAtUtcMidnight() {
		LimitDefinition daily = LimitDefinition.calendar("daily", 3, CalendarPeriod.of(Unit.DAY, BERLIN));
		long evening = Instant.parse("2026-12-07T22:59:00Z").toEpochMilli(); // 23:59 in Berlin
		exhaust(daily, evening, 3);
		RateLimitDecision denied = at(this.limiter, evening).tryAcquire("client", List.of(daily.request()));
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.retryAfterMs()).hasValue(60_000);

		long afterMidnight = Instant.parse("2026-12-07T23:00:30Z").toEpochMilli(); // 00:00:30 in Berlin
		assertThat(at(this.limiter, afterMidnight).tryAcquire("client", List.of(daily.request())).allowed()).isTrue();
	}

	@Test
	void aRequestDeniedOnA23HourDayIsToldToRetryAtTheRealMidnight() {
		LimitDefinition daily = LimitDefinition.calendar("daily", 2, CalendarPeriod.of(Unit.DAY, BERLIN));
		long noon = Instant.parse("2026-03-29T10:00:00Z").toEpochMilli(); // 12:00 CEST, the day clocks went forward
		exhaust(daily, noon, 2);
		RateLimitDecision denied = at(this.limiter, noon).tryAcquire("client", List.of(daily.request()));
		// midnight in Berlin is 22:00 UTC that day: 12 h away, not the 13 h a 24-hour day would say
		assertThat(denied.retryAfterMs()).hasValue(12 * 3_600_000L);
		long midnight = Instant.parse("2026-03-29T22:00:00Z").toEpochMilli();
		assertThat(at(this.limiter, midnight - 1).tryAcquire("client", List.of(daily.request())).allowed()).isFalse();
		assertThat(at(this.limiter, midnight).tryAcquire("client", List.of(daily.request())).allowed()).isTrue();
	}

	@Test
	void aChangeOfZoneMidPeriodKeepsTheCountUntilItsPeriodEndsOrMovesItWithAnAdmission() {
		LimitDefinition berlin = LimitDefinition.calendar("daily", 5, CalendarPeriod.of(Unit.DAY, BERLIN));
		LimitDefinition newYork = LimitDefinition.calendar("daily", 5,
				CalendarPeriod.of(Unit.DAY, ZoneId.of("America/New_York")));
		long morning = Instant.parse("2026-12-07T10:00:00Z").toEpochMilli();
		long berlinMidnight = Instant.parse("2026-12-07T23:00:00Z").toEpochMilli();
		long newYorkMidnight = Instant.parse("2026-12-08T05:00:00Z").toEpochMilli();
		exhaust(berlin, morning, 5);

		// New York's day (05:00Z to 05:00Z) overlaps Berlin's: the 5 count on, no fresh budget, until Berlin's day,
		// in which they were counted, ends (a denial writes nothing: the state keeps its own end)
		RateLimitDecision moved = at(this.limiter, morning + 60_000).tryAcquire("client", List.of(newYork.request()));
		assertThat(moved.allowed()).isFalse();
		assertThat(moved.retryAfterMs()).hasValue(berlinMidnight - morning - 60_000);
		assertThat(at(this.limiter, berlinMidnight - 1).tryAcquire("client", List.of(newYork.request())).allowed())
			.isFalse();
		assertThat(at(this.limiter, berlinMidnight).tryAcquire("client", List.of(newYork.request(5))).allowed())
			.isTrue();

		// a count that an admission moved into New York's day holds until New York's midnight
		at(this.limiter, morning).tryAcquire("other", List.of(berlin.request(3)));
		LimitDecision admitted = at(this.limiter, morning + 1000).tryAcquire("other", List.of(newYork.request()))
			.decisions()
			.get(0);
		assertThat(admitted.allowed()).isTrue();
		assertThat(admitted.remaining()).isEqualTo(1);
		assertThat(admitted.resetAfterMs()).isEqualTo(newYorkMidnight - morning - 1000);
		RateLimitDecision afterBerlinMidnight = at(this.limiter, berlinMidnight + 1000).tryAcquire("other",
				List.of(newYork.request(2)));
		assertThat(afterBerlinMidnight.allowed()).isFalse();
		assertThat(afterBerlinMidnight.retryAfterMs()).hasValue(newYorkMidnight - berlinMidnight - 1000);
	}

	@Test
	void aChangeOfUnitMidPeriodCarriesTheCountBothWays() {
		LimitDefinition daily = LimitDefinition.calendar("quota", 10, CalendarPeriod.of(Unit.DAY));
		LimitDefinition monthly = LimitDefinition.calendar("quota", 10, CalendarPeriod.of(Unit.MONTH));
		long day = Instant.parse("2026-12-07T10:00:00Z").toEpochMilli();
		at(this.limiter, day).tryAcquire("client", List.of(daily.request(7)));

		// the day's 7 count in the month
		LimitDecision month = at(this.limiter, day + 1000).tryAcquire("client", List.of(monthly.request(3)))
			.decisions()
			.get(0);
		assertThat(month.allowed()).isTrue();
		assertThat(month.remaining()).isZero();
		assertThat(month.resetAfterMs()).isEqualTo(Instant.parse("2027-01-01T00:00:00Z").toEpochMilli() - day - 1000);

		// back to days: the month's 10 count in today, which ends at midnight
		LimitDecision back = at(this.limiter, day + 2000).tryAcquire("client", List.of(daily.request()))
			.decisions()
			.get(0);
		assertThat(back.allowed()).isFalse();
		assertThat(back.retryAfterMs()).hasValue(Instant.parse("2026-12-08T00:00:00Z").toEpochMilli() - day - 2000);
		assertThat(at(this.limiter, Instant.parse("2026-12-08T00:00:00Z").toEpochMilli())
			.tryAcquire("client", List.of(daily.request(10)))
			.allowed()).isTrue();
	}

	@Test
	void aLaggingClockIsDecidedInTheStoredPeriodAndNeverReopensAnEarlierOne() {
		LimitDefinition daily = LimitDefinition.calendar("daily", 2, CalendarPeriod.of(Unit.DAY));
		long tomorrow = Instant.parse("2026-12-08T00:00:10Z").toEpochMilli();
		exhaust(daily, tomorrow, 2);
		long yesterday = tomorrow - 20_000;
		RateLimitDecision lagging = at(this.limiter, yesterday).tryAcquire("client", List.of(daily.request()));
		assertThat(lagging.allowed()).isFalse();
		// measured from the stored period's start (rule 7): a whole day
		assertThat(lagging.retryAfterMs()).hasValue(86_400_000L);
	}

	@Test
	void aSettlementChargesDebtInThePeriodAndARefundOnlyInTheReservationsOwn() {
		LimitDefinition daily = LimitDefinition.calendar("tokens", 100, CalendarPeriod.of(Unit.DAY, BERLIN));
		long now = Instant.parse("2026-12-07T12:00:00Z").toEpochMilli();
		LimitDecision reserved = at(this.limiter, now).tryAcquire("client", List.of(daily.request(10)))
			.decisions()
			.get(0);
		LimitDecision charged = at(this.limiter, now + 1000).settle("client", List.of(Settlement.of(reserved, 150)))
			.decisions()
			.get(0);
		assertThat(charged.remaining()).isZero();
		RateLimitDecision denied = at(this.limiter, now + 2000).tryAcquire("client", List.of(daily.request()));
		assertThat(denied.allowed()).isFalse();

		// a refund of yesterday's reservation gives nothing back today
		long tomorrow = Instant.parse("2026-12-08T12:00:00Z").toEpochMilli();
		LimitDecision today = at(this.limiter, tomorrow).tryAcquire("client", List.of(daily.request(100)))
			.decisions()
			.get(0);
		assertThat(today.allowed()).isTrue();
		LimitDecision refunded = at(this.limiter, tomorrow + 1000).settle("client", List.of(Settlement.of(reserved, 0)))
			.decisions()
			.get(0);
		assertThat(refunded.remaining()).isZero();
	}

	@Test
	void aCalendarPeriodAndAWindowOfOneLengthAreDecidedTogether() {
		LimitDefinition perMinute = LimitDefinition.of("per-minute", Algorithm.TOKEN_BUCKET, 2, java.time.Duration.ofMinutes(1));
		LimitDefinition daily = LimitDefinition.calendar("daily", 3, CalendarPeriod.of(Unit.DAY, BERLIN));
		long now = Instant.parse("2026-12-07T12:00:00Z").toEpochMilli();
		List<LimitRequest> both = List.of(perMinute.request(), daily.request());
		assertThat(at(this.limiter, now).tryAcquire("client", both).allowed()).isTrue();
		assertThat(at(this.limiter, now).tryAcquire("client", both).allowed()).isTrue();
		// the minute's bucket denies: the day consumes nothing
		assertThat(at(this.limiter, now).tryAcquire("client", both).allowed()).isFalse();
		assertThat(at(this.limiter, now + 60_000).tryAcquire("client", both).allowed()).isTrue();
		RateLimitDecision dayDenies = at(this.limiter, now + 120_000).tryAcquire("client", both);
		assertThat(dayDenies.allowed()).isFalse();
		assertThat(dayDenies.decisions().get(1).allowed()).isFalse();
	}

	private void exhaust(LimitDefinition limit, long now, int expected) {
		int admitted = 0;
		while (at(this.limiter, now).tryAcquire("client", List.of(limit.request())).allowed()) {
			admitted++;
		}
		assertThat(admitted).isEqualTo(expected);
	}

}
