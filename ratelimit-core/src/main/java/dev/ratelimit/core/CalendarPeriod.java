package dev.ratelimit.core;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A calendar period in a time zone: a day, week, month or year that starts at midnight on the zone's wall clock
 * (the first day of the week, of the month, of the year), the window of a quota that resets "at midnight in Berlin"
 * or "on the first of the month in New York". A limit with a calendar period ({@link LimitDefinition#calendar}) is a
 * fixed window whose windows are these periods: a day of 23 or 25 hours across a daylight-saving change, months of
 * 28 to 31 days, leap years ({@code docs/ALGORITHMS.md}, "Calendar periods").
 *
 * <p>
 * The zone's rules are Java's ({@link ZoneId#getRules()}, the IANA time zone database of the running JDK). Where a
 * zone's clocks skip midnight (a daylight-saving change at 00:00), the period starts at the first instant of that day.
 *
 * @param unit the period: a day, a week, a month or a year
 * @param zone the time zone whose midnight starts a period, any {@link ZoneId} ({@code UTC}, {@code Europe/Berlin})
 * @param firstDayOfWeek the day a week starts on; only weeks use it
 */
public record CalendarPeriod(Unit unit, ZoneId zone, DayOfWeek firstDayOfWeek) {

	/** A calendar unit, with the nominal length that {@link #nominalLength()} gives. */
	public enum Unit {

		/** From midnight to midnight; 23, 24 or 25 hours. */
		DAY(Duration.ofDays(1)),

		/** From midnight of the first day of the week, seven days. */
		WEEK(Duration.ofDays(7)),

		/** From midnight of the first of the month, 28 to 31 days. */
		MONTH(Duration.ofDays(30)),

		/** From midnight of January 1st, 365 or 366 days. */
		YEAR(Duration.ofDays(365));

		private final Duration nominal;

		Unit(Duration nominal) {
			this.nominal = nominal;
		}

	}

	/** Periods in UTC, weeks from Monday (ISO 8601). */
	public static final ZoneId DEFAULT_ZONE = ZoneOffset.UTC;

	/** Weeks start on Monday unless said otherwise (ISO 8601). */
	public static final DayOfWeek DEFAULT_FIRST_DAY_OF_WEEK = DayOfWeek.MONDAY;

	/** The last period found, reused while instants fall in it: most decisions of a day ask for the same day. */
	private static final ThreadLocal<@Nullable Cached> LAST = new ThreadLocal<>();

	/** The same for usage, whose period often differs from its limit's: the two would evict each other. */
	private static final ThreadLocal<@Nullable Cached> LAST_USAGE = new ThreadLocal<>();

	public CalendarPeriod {
		Objects.requireNonNull(unit, "unit must not be null");
		Objects.requireNonNull(zone, "zone must not be null");
		Objects.requireNonNull(firstDayOfWeek, "firstDayOfWeek must not be null");
		// UTC, Z and +00:00 are one zone: one period, one state
		zone = zone.normalized();
	}

	/** The {@code unit} in {@code zone}, weeks from Monday. */
	public static CalendarPeriod of(Unit unit, ZoneId zone) {
		return new CalendarPeriod(unit, zone, DEFAULT_FIRST_DAY_OF_WEEK);
	}

	/** The {@code unit} in UTC, weeks from Monday. */
	public static CalendarPeriod of(Unit unit) {
		return of(unit, DEFAULT_ZONE);
	}

	/**
	 * The unit named {@code name}, case-insensitive: {@code day}, {@code week}, {@code month}, {@code year}.
	 * @throws IllegalArgumentException naming the four when {@code name} is none of them
	 */
	public static Unit unit(String name) {
		for (Unit unit : Unit.values()) {
			if (unit.name().equalsIgnoreCase(name.trim())) {
				return unit;
			}
		}
		throw new IllegalArgumentException("'" + name + "' is no calendar period: day, week, month or year");
	}

	/**
	 * The zone named {@code id} ({@code UTC}, {@code Europe/Berlin}, {@code +02:00}).
	 * @throws IllegalArgumentException with {@link ZoneId#of}'s reason when the id names no zone
	 */
	public static ZoneId zone(String id) {
		try {
			return ZoneId.of(id.trim());
		}
		catch (DateTimeException ex) {
			throw new IllegalArgumentException("'" + id + "' is no time zone (an IANA id such as Europe/Berlin, or UTC): "
					+ ex.getMessage(), ex);
		}
	}

	/**
	 * The nominal length of the unit, for what needs one length rather than the period's own: a day 24 h, a week
	 * 7 days, a month 30 days, a year 365 days. Never used to find a period's bounds.
	 */
	public Duration nominalLength() {
		return this.unit.nominal;
	}

	/** The start of the period that holds {@code instant}. */
	public Instant start(Instant instant) {
		return Instant.ofEpochMilli(bounds(instant.toEpochMilli())[1]);
	}

	/** The end of the period that holds {@code instant}: the start of the next one, exclusive. */
	public Instant end(Instant instant) {
		return Instant.ofEpochMilli(bounds(instant.toEpochMilli())[2]);
	}

	/**
	 * The starts of four consecutive periods around the instant {@code ms}, in ms since the epoch: of the period before
	 * the one that holds it, of that one, of the next and of the one after. The period that holds {@code ms} is
	 * {@code [b[1], b[2])}. The array is shared: read it, never write it.
	 */
	long[] bounds(long ms) {
		return starts(LAST, ms, 4);
	}

	/**
	 * The starts of five consecutive periods around the instant {@code ms}, as {@link #bounds} and one more: usage
	 * of a period lives until the end of the period after it, so the next period's needs the fifth
	 * (docs/ALGORITHMS.md, "Usage"). The array is shared: read it, never write it.
	 */
	long[] usageBounds(long ms) {
		return starts(LAST_USAGE, ms, 5);
	}

	/** {@code count} starts from the period before the one holding {@code ms}, cached in {@code cache}. */
	private long[] starts(ThreadLocal<@Nullable Cached> cache, long ms, int count) {
		Cached last = cache.get();
		if (last != null && last.period.equals(this) && last.bounds[1] <= ms && ms < last.bounds[2]) {
			return last.bounds;
		}
		LocalDate first = firstDay(Instant.ofEpochMilli(ms).atZone(this.zone).toLocalDate());
		long[] bounds = new long[count];
		for (int i = 0; i < count; i++) {
			bounds[i] = startOf(step(first, i - 1));
		}
		cache.set(new Cached(this, bounds));
		return bounds;
	}

	/** The first day of the period that holds {@code day}. */
	private LocalDate firstDay(LocalDate day) {
		return switch (this.unit) {
			case DAY -> day;
			case WEEK -> day.with(TemporalAdjusters.previousOrSame(this.firstDayOfWeek));
			case MONTH -> day.withDayOfMonth(1);
			case YEAR -> day.withDayOfYear(1);
		};
	}

	private LocalDate step(LocalDate first, int periods) {
		return switch (this.unit) {
			case DAY -> first.plusDays(periods);
			case WEEK -> first.plusWeeks(periods);
			case MONTH -> first.plusMonths(periods);
			case YEAR -> first.plusYears(periods);
		};
	}

	/** The first instant of {@code day} in the zone: midnight, or the first time after a gap that skips it. */
	private long startOf(LocalDate day) {
		return day.atStartOfDay(this.zone).toInstant().toEpochMilli();
	}

	/**
	 * As written in configuration and headers: {@code day}, or {@code week in Europe/Berlin from SUNDAY}; the zone and
	 * first day of week only where they are not the defaults.
	 */
	@Override
	public String toString() {
		StringBuilder text = new StringBuilder(this.unit.name().toLowerCase(Locale.ROOT));
		if (!this.zone.equals(DEFAULT_ZONE)) {
			text.append(" in ").append(this.zone.getId());
		}
		if (this.unit == Unit.WEEK && this.firstDayOfWeek != DEFAULT_FIRST_DAY_OF_WEEK) {
			text.append(" from ").append(this.firstDayOfWeek);
		}
		return text.toString();
	}

	private record Cached(CalendarPeriod period, long[] bounds) {
	}

}
