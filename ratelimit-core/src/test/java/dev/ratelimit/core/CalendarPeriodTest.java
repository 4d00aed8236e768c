package dev.ratelimit.core;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import dev.ratelimit.core.CalendarPeriod.Unit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The periods' bounds, names and errors, and which limits take a calendar period. */
class CalendarPeriodTest {

	@Test
	void boundsAreFourConsecutivePeriodStartsAroundTheInstant() {
		CalendarPeriod month = CalendarPeriod.of(Unit.MONTH, ZoneId.of("Europe/Berlin"));
		long[] bounds = month.bounds(Instant.parse("2026-03-15T12:00:00Z").toEpochMilli());
		assertThat(bounds).containsExactly(Instant.parse("2026-01-31T23:00:00Z").toEpochMilli(),
				Instant.parse("2026-02-28T23:00:00Z").toEpochMilli(),
				// April starts in summer time
				Instant.parse("2026-03-31T22:00:00Z").toEpochMilli(), Instant.parse("2026-04-30T22:00:00Z").toEpochMilli());
		assertThat(month.start(Instant.parse("2026-03-31T22:00:00Z"))).isEqualTo(Instant.parse("2026-03-31T22:00:00Z"));
		assertThat(month.end(Instant.parse("2026-03-31T21:59:59.999Z"))).isEqualTo(Instant.parse("2026-03-31T22:00:00Z"));
	}

	@Test
	void aWeekStartsOnItsFirstDay() {
		Instant wednesday = Instant.parse("2026-12-09T12:00:00Z");
		assertThat(CalendarPeriod.of(Unit.WEEK).start(wednesday)).isEqualTo(Instant.parse("2026-12-07T00:00:00Z"));
		assertThat(new CalendarPeriod(Unit.WEEK, ZoneOffset.UTC, DayOfWeek.SUNDAY).start(wednesday))
			.isEqualTo(Instant.parse("2026-12-06T00:00:00Z"));
	}

	@Test
	void namesAreReadAndWrittenAsConfigurationWritesThem() {
		assertThat(CalendarPeriod.unit(" Month")).isEqualTo(Unit.MONTH);
		assertThatIllegalArgumentException().isThrownBy(() -> CalendarPeriod.unit("fortnight"))
			.withMessage("'fortnight' is no calendar period: day, week, month or year");
		assertThat(CalendarPeriod.zone("Europe/Berlin")).isEqualTo(ZoneId.of("Europe/Berlin"));
		assertThatIllegalArgumentException().isThrownBy(() -> CalendarPeriod.zone("Mars/Olympus_Mons"))
			.withMessageStartingWith("'Mars/Olympus_Mons' is no time zone");
		assertThat(CalendarPeriod.of(Unit.DAY, ZoneId.of("UTC"))).isEqualTo(CalendarPeriod.of(Unit.DAY));
		assertThat(CalendarPeriod.of(Unit.DAY)).hasToString("day");
		assertThat(new CalendarPeriod(Unit.WEEK, ZoneId.of("America/New_York"), DayOfWeek.SUNDAY))
			.hasToString("week in America/New_York from SUNDAY");
	}

	@Test
	void onlyTheFixedWindowTakesACalendarPeriodAndItsLimitIsNotScaledByTheWindow() {
		CalendarPeriod year = CalendarPeriod.of(Unit.YEAR);
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> new LimitDefinition("yearly", Algorithm.TOKEN_BUCKET, 10, year.nominalLength(), 10, year))
			.withMessageContaining("rate limit 'yearly' counts calendar periods (year), which only the fixed window takes");
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> new LimitDefinition("yearly", Algorithm.FIXED_WINDOW, 10, Duration.ofDays(1), 10, year))
			.withMessageContaining("must be the nominal length");
		// a yearly quota of a trillion units: 10^12 × a year in ms would leave 2^52, a count does not
		LimitDefinition trillion = LimitDefinition.calendar("yearly", 1_000_000_000_000L, year);
		assertThat(trillion.request(1_000_000_000_000L).cost()).isEqualTo(1_000_000_000_000L);
		assertThat(trillion.window()).isEqualTo(Duration.ofDays(365));
	}

	@Test
	void aCalendarLimitSharesStateWithCalendarLimitsOfTheSameNameWhateverTheirPeriod() {
		LimitDefinition berlin = LimitDefinition.calendar("q", 5, CalendarPeriod.of(Unit.DAY, ZoneId.of("Europe/Berlin")));
		LimitDefinition monthly = LimitDefinition.calendar("q", 5, CalendarPeriod.of(Unit.MONTH));
		LimitDefinition oneDay = LimitDefinition.of("q", Algorithm.FIXED_WINDOW, 5, Duration.ofDays(1));
		assertThat(berlin.sharesState(monthly)).isTrue();
		assertThat(berlin.sharesState(oneDay)).isFalse();
		assertThat(oneDay.sharesState(berlin)).isFalse();
		RedisKeys keys = new RedisKeys("rl:");
		assertThat(keys.key("c", berlin)).isEqualTo(keys.key("c", monthly)).endsWith(":q:fw:cal");
		assertThat(keys.key("c", oneDay)).endsWith(":q:fw:1d");
	}

}
