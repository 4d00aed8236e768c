package dev.ratelimit.spring.limits;

import java.time.Duration;

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

	/** The calendar period {@code shape} sets, or this shape's when it sets neither a period nor a window. */
	private @Nullable CalendarPeriod calendar(LimitSettings.Shape shape) {
		CalendarPeriod.Unit unit = shape.getPeriod();
		if (unit == null && this.calendar != null && shape.getWindow() == null) {
			// a plan that changes only the zone or the first day of the limit's own period
			unit = this.calendar.unit();
		}
		if (unit == null) {
			if (shape.getZone() != null || shape.getFirstDayOfWeek() != null) {
				throw new InvalidLimitException((shape.getZone() != null) ? "zone" : "firstDayOfWeek",
						"zone and first-day-of-week apply to a limit with a period (day, week, month or year)");
			}
			return (shape.getWindow() != null) ? null : this.calendar;
		}
		if (shape.getPeriod() == null && this.calendar != null) {
			return new CalendarPeriod(unit, (shape.getZone() != null) ? shape.getZone() : this.calendar.zone(),
					(shape.getFirstDayOfWeek() != null) ? shape.getFirstDayOfWeek() : this.calendar.firstDayOfWeek());
		}
		if (shape.getWindow() != null) {
			throw new InvalidLimitException("period", "a limit has a window or a calendar period, not both: window "
					+ shape.getWindow() + ", period " + unit.name().toLowerCase(java.util.Locale.ROOT));
		}
		return new CalendarPeriod(unit, (shape.getZone() != null) ? shape.getZone() : CalendarPeriod.DEFAULT_ZONE,
				(shape.getFirstDayOfWeek() != null) ? shape.getFirstDayOfWeek() : CalendarPeriod.DEFAULT_FIRST_DAY_OF_WEEK);
	}

}
