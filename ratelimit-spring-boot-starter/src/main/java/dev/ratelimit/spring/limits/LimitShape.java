package dev.ratelimit.spring.limits;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Locale;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.core.InvalidLimitException;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a limit before it has a name and a cost: what an annotation, a rule, a plan or the defaults set.
 *
 * @param algorithm how units are counted
 * @param limit units per window
 * @param window the window; for a calendar period, the period's nominal length
 * @param capacity the token bucket's size, or {@code null} for the default ({@code ratelimit.defaults.capacity},
 * else the limit)
 * @param calendar the calendar period a fixed window counts in instead of {@code window}, or {@code null}
 */
record LimitShape(Algorithm algorithm, long limit, Duration window, @Nullable Long capacity,
		@Nullable CalendarPeriod calendar) {

	LimitShape(Algorithm algorithm, long limit, Duration window, @Nullable Long capacity) {
		this(algorithm, limit, window, capacity, null);
	}

	static LimitShape of(LimitSettings.Defaults defaults) {
		return new LimitShape(defaults.getAlgorithm(), defaults.getLimit(), defaults.getWindow(),
				defaults.getCapacity());
	}

	/** This shape with another window: a window of one length, no calendar period. */
	LimitShape withWindow(Duration window) {
		return new LimitShape(this.algorithm, this.limit, window, this.capacity, null);
	}

	/**
	 * This shape with what {@code shape} sets: its algorithm, limit and window or calendar period where set; its
	 * capacity always (a capacity belongs to the bucket that sets it, so a plan that leaves it unset gets the default,
	 * not the limit's). A shape that sets a period and no algorithm is a fixed window, the one algorithm that takes a
	 * period.
	 * @throws InvalidLimitException naming {@code period} or {@code zone} when they do not go together with the rest
	 */
	LimitShape with(LimitSettings.Shape shape) {
		CalendarPeriod calendar = calendar(shape);
		Algorithm algorithm = (shape.getAlgorithm() != null) ? shape.getAlgorithm()
				: (calendar != null && shape.getPeriod() != null) ? Algorithm.FIXED_WINDOW : this.algorithm;
		Duration window = (calendar != null) ? calendar.nominalLength()
				: (shape.getWindow() != null) ? shape.getWindow() : this.window;
		return new LimitShape(algorithm, (shape.getLimit() != null) ? shape.getLimit() : this.limit, window,
				shape.getCapacity(), calendar);
	}

	/**
	 * The calendar period after {@code shape}: none where it sets a window; the period it sets; else this shape's own,
	 * with the zone and first day of the week {@code shape} sets (a plan that changes only those).
	 */
	private @Nullable CalendarPeriod calendar(LimitSettings.Shape shape) {
		boolean zoneOrDay = shape.getZone() != null || shape.getFirstDayOfWeek() != null;
		if (shape.getWindow() != null) {
			if (shape.getPeriod() != null) {
				throw new InvalidLimitException("period", "a limit has a window or a calendar period, not both: window "
						+ shape.getWindow() + ", period " + shape.getPeriod().name().toLowerCase(Locale.ROOT));
			}
			if (zoneOrDay) {
				throw zoneWithoutPeriod(shape);
			}
			return null;
		}
		CalendarPeriod own = (shape.getPeriod() != null) ? null : this.calendar;
		CalendarPeriod.Unit unit = (own != null) ? own.unit() : shape.getPeriod();
		if (unit == null) {
			if (zoneOrDay) {
				throw zoneWithoutPeriod(shape);
			}
			return null;
		}
		ZoneId zone = (shape.getZone() != null) ? shape.getZone()
				: (own != null) ? own.zone() : CalendarPeriod.DEFAULT_ZONE;
		DayOfWeek firstDay = (shape.getFirstDayOfWeek() != null) ? shape.getFirstDayOfWeek()
				: (own != null) ? own.firstDayOfWeek() : CalendarPeriod.DEFAULT_FIRST_DAY_OF_WEEK;
		return new CalendarPeriod(unit, zone, firstDay);
	}

	private static InvalidLimitException zoneWithoutPeriod(LimitSettings.Shape shape) {
		return new InvalidLimitException((shape.getZone() != null) ? "zone" : "firstDayOfWeek",
				"zone and first-day-of-week apply to a limit with a period (day, week, month or year)");
	}

}
