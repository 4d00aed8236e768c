package dev.ratelimit.spring.autoconfigure;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.spring.limits.LimitSettings;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a limit that a filter rule or a plan sets: each value unset falls back to the limit's own, then
 * to ratelimit.defaults.
 */
public class LimitShapeProperties implements LimitSettings.Shape {

	/**
	 * Algorithm: 'fixed-window', 'sliding-log', 'sliding-window-counter' or 'token-bucket'.
	 */
	private @Nullable Algorithm algorithm;

	/**
	 * Units allowed per window; for the token bucket, tokens added per window.
	 */
	private @Nullable Long limit;

	/**
	 * Window of the limit, at least 1 ms.
	 */
	private @Nullable Duration window;

	/**
	 * Token bucket size in tokens.
	 */
	private @Nullable Long capacity;

	/**
	 * Calendar period instead of a window: 'day', 'week', 'month' or 'year', starting at midnight in the zone; for the
	 * fixed window only, which a limit with a period and no algorithm is.
	 */
	private CalendarPeriod.@Nullable Unit period;

	/**
	 * Time zone of the period, an IANA id such as 'Europe/Berlin'. UTC when unset.
	 */
	private @Nullable ZoneId zone;

	/**
	 * Day a week of the period starts on. Monday when unset.
	 */
	private @Nullable DayOfWeek firstDayOfWeek;

	public @Nullable Algorithm getAlgorithm() {
		return this.algorithm;
	}

	public void setAlgorithm(@Nullable Algorithm algorithm) {
		this.algorithm = algorithm;
	}

	public @Nullable Long getLimit() {
		return this.limit;
	}

	public void setLimit(@Nullable Long limit) {
		this.limit = limit;
	}

	public @Nullable Duration getWindow() {
		return this.window;
	}

	public void setWindow(@Nullable Duration window) {
		this.window = window;
	}

	public @Nullable Long getCapacity() {
		return this.capacity;
	}

	public void setCapacity(@Nullable Long capacity) {
		this.capacity = capacity;
	}

	@Override
	public CalendarPeriod.@Nullable Unit getPeriod() {
		return this.period;
	}

	public void setPeriod(CalendarPeriod.@Nullable Unit period) {
		this.period = period;
	}

	@Override
	public @Nullable ZoneId getZone() {
		return this.zone;
	}

	public void setZone(@Nullable ZoneId zone) {
		this.zone = zone;
	}

	@Override
	public @Nullable DayOfWeek getFirstDayOfWeek() {
		return this.firstDayOfWeek;
	}

	public void setFirstDayOfWeek(@Nullable DayOfWeek firstDayOfWeek) {
		this.firstDayOfWeek = firstDayOfWeek;
	}

	/** What the shape sets, as an error message quotes it: {@code {limit=5, period=MONTH}}. */
	@Override
	public String toString() {
		Map<String, Object> set = new LinkedHashMap<>();
		put(set, "algorithm", this.algorithm);
		put(set, "limit", this.limit);
		put(set, "window", this.window);
		put(set, "capacity", this.capacity);
		put(set, "period", this.period);
		put(set, "zone", this.zone);
		put(set, "first-day-of-week", this.firstDayOfWeek);
		return set.toString();
	}

	private static void put(Map<String, Object> set, String name, @Nullable Object value) {
		if (value != null) {
			set.put(name, value);
		}
	}

}
