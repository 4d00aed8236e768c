package dev.ratelimit.spring.limits;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import org.jspecify.annotations.Nullable;


/**
 * What an operator changed of one limit at runtime, through the {@code ratelimits} endpoint: its shape, mode and
 * failure policy, each {@code null} where the configuration's stands. Never a key, a rule's paths or any other
 * expression: those come only from the application's configuration sources, so that the endpoint runs no code.
 * Of a limit's shape in one plan, or for one client, only the shape.
 *
 * @param algorithm the algorithm
 * @param limit units per window, at least 1
 * @param window the window; replaces a calendar period
 * @param capacity the token bucket's capacity; dropped when {@code algorithm} makes the limit another algorithm
 * @param mode enforce or shadow
 * @param failurePolicy what the limit does when Redis fails
 * @param period the calendar period a fixed window counts in ({@code day}, {@code week}, {@code month},
 * {@code year}); replaces a window, and makes the limit a fixed window unless {@code algorithm} says otherwise
 * @param zone the time zone of the period set here or of the limit's own
 * @param firstDayOfWeek the day a week of the period starts on
 */
public record LimitOverride(@Nullable Algorithm algorithm, @Nullable Long limit, @Nullable Duration window,
		@Nullable Long capacity, @Nullable LimitMode mode, @Nullable FailurePolicy failurePolicy,
		CalendarPeriod.@Nullable Unit period, @Nullable ZoneId zone, @Nullable DayOfWeek firstDayOfWeek) {

	/** An override of a limit's shape by a window of one length, its mode and its failure policy. */
	public LimitOverride(@Nullable Algorithm algorithm, @Nullable Long limit, @Nullable Duration window,
			@Nullable Long capacity, @Nullable LimitMode mode, @Nullable FailurePolicy failurePolicy) {
		this(algorithm, limit, window, capacity, mode, failurePolicy, null, null, null);
	}

	/** Whether it changes nothing. */
	public boolean isEmpty() {
		return shapeOnly() && asShape(this.capacity).isEmpty();
	}

	/** Whether it changes only the shape (what a plan or a client may change). */
	public boolean shapeOnly() {
		return this.mode == null && this.failurePolicy == null;
	}

	/**
	 * {@code shape} with this override's parts. A limit that the override makes another algorithm than the token
	 * bucket loses the bucket's configured capacity; a capacity the override sets stays, to be checked as startup
	 * checks it (a capacity applies to the token bucket only). A window replaces the shape's calendar period, a
	 * period its window.
	 * @throws dev.ratelimit.core.InvalidLimitException naming {@code period} or {@code zone} when they do not go
	 * together with the rest
	 */
	LimitShape applyTo(LimitShape shape) {
		return shape.with(asShape(capacity(shape.capacity())));
	}

	/** A plan's shape of a limit ({@code configured}, or none) with this override's parts, as {@link #applyTo}. */
	LimitSettings.Shape over(LimitSettings.@Nullable Shape configured) {
		if (configured == null) {
			return asShape(capacity(null));
		}
		// a window replaces the plan's period, a period its window
		boolean windowKept = this.window == null && this.period == null;
		boolean periodKept = this.window == null;
		return new PlanShape(or(this.algorithm, configured.getAlgorithm()), or(this.limit, configured.getLimit()),
				or(this.window, windowKept ? configured.getWindow() : null), capacity(configured.getCapacity()),
				or(this.period, periodKept ? configured.getPeriod() : null),
				or(this.zone, periodKept ? configured.getZone() : null),
				or(this.firstDayOfWeek, periodKept ? configured.getFirstDayOfWeek() : null));
	}

	private static <T> @Nullable T or(@Nullable T value, @Nullable T otherwise) {
		return (value != null) ? value : otherwise;
	}

	private PlanShape asShape(@Nullable Long capacity) {
		return new PlanShape(this.algorithm, this.limit, this.window, capacity, this.period, this.zone,
				this.firstDayOfWeek);
	}

	private @Nullable Long capacity(@Nullable Long configured) {
		if (this.capacity != null) {
			return this.capacity;
		}
		return (this.algorithm != null && this.algorithm != Algorithm.TOKEN_BUCKET) ? null : configured;
	}

	/** As the endpoint and the store write it: {@code algorithm=token-bucket;limit=100;window=1s}. */
	public String encode() {
		StringJoiner parts = new StringJoiner(";");
		add(parts, "algorithm", (this.algorithm != null) ? Terms.of(this.algorithm) : null);
		add(parts, "limit", this.limit);
		add(parts, "window", this.window);
		add(parts, "capacity", this.capacity);
		add(parts, "mode", (this.mode != null) ? Terms.of(this.mode) : null);
		add(parts, "failure-policy", (this.failurePolicy != null) ? Terms.of(this.failurePolicy) : null);
		add(parts, "period", (this.period != null) ? Terms.of(this.period) : null);
		add(parts, "zone", this.zone);
		add(parts, "first-day-of-week", (this.firstDayOfWeek != null) ? Terms.of(this.firstDayOfWeek) : null);
		return parts.toString();
	}

	private static void add(StringJoiner parts, String name, @Nullable Object value) {
		if (value != null) {
			parts.add(name + "=" + value);
		}
	}

	/**
	 * @param encoded as {@link #encode} writes it
	 * @throws IllegalArgumentException naming the part that is not valid
	 */
	public static LimitOverride decode(String encoded) {
		Map<String, String> parts = new LinkedHashMap<>();
		for (String part : encoded.split(";")) {
			if (part.isBlank()) {
				continue;
			}
			int equals = part.indexOf('=');
			if (equals < 0) {
				throw new IllegalArgumentException("'" + part + "' is not name=value");
			}
			parts.put(part.substring(0, equals).trim(), part.substring(equals + 1).trim());
		}
		LimitOverride shape = of(parts.remove("algorithm"), number(parts.remove("limit")), parts.remove("window"),
				number(parts.remove("capacity")), parts.remove("mode"), parts.remove("failure-policy"));
		return shape.withCalendar(parts.remove("period"), parts.remove("zone"),
				unknownOr(parts, parts.remove("first-day-of-week")));
	}

	/**
	 * An override from the values an operator wrote, each {@code null} when not given, in {@code application.yml}'s
	 * terms ({@code token-bucket}, {@code 1m}, {@code shadow}, {@code fail-open}).
	 * @throws IllegalArgumentException naming the value that is not valid
	 */
	public static LimitOverride of(@Nullable String algorithm, @Nullable Long limit, @Nullable String window,
			@Nullable Long capacity, @Nullable String mode, @Nullable String failurePolicy) {
		return new LimitOverride((algorithm != null) ? AnnotationValueParser.parseAlgorithm(algorithm) : null, limit,
				(window != null) ? AnnotationValueParser.parseWindow(window) : null, capacity,
				(mode != null) ? AnnotationValueParser.parseMode(mode) : null,
				(failurePolicy != null) ? AnnotationValueParser.parseFailurePolicy(failurePolicy) : null);
	}

	/**
	 * This override with a calendar period, as an operator writes it ({@code day}, {@code Europe/Berlin},
	 * {@code sunday}), each {@code null} when not given.
	 * @throws IllegalArgumentException naming the value that is not valid
	 */
	public LimitOverride withCalendar(@Nullable String period, @Nullable String zone, @Nullable String firstDayOfWeek) {
		return new LimitOverride(this.algorithm, this.limit, this.window, this.capacity, this.mode, this.failurePolicy,
				(period != null) ? CalendarPeriod.unit(period) : this.period,
				(zone != null) ? CalendarPeriod.zone(zone) : this.zone,
				(firstDayOfWeek != null) ? AnnotationValueParser.parseDayOfWeek(firstDayOfWeek) : this.firstDayOfWeek);
	}

	private static @Nullable String unknownOr(Map<String, String> rest, @Nullable String value) {
		if (!rest.isEmpty()) {
			throw new IllegalArgumentException("unknown " + rest.keySet() + "; an override sets algorithm, limit,"
					+ " window, capacity, mode, failure-policy, period, zone or first-day-of-week");
		}
		return value;
	}

	private static @Nullable Long number(@Nullable String value) {
		if (value == null) {
			return null;
		}
		try {
			return Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("'" + value + "' is not a whole number");
		}
	}

	/** A plan's shape of a limit, overridden; or what an override sets of a shape. */
	private record PlanShape(@Nullable Algorithm getAlgorithm, @Nullable Long getLimit, @Nullable Duration getWindow,
			@Nullable Long getCapacity, CalendarPeriod.@Nullable Unit getPeriod, @Nullable ZoneId getZone,
			@Nullable DayOfWeek getFirstDayOfWeek) implements LimitSettings.Shape {

		boolean isEmpty() {
			return this.getAlgorithm == null && this.getLimit == null && this.getWindow == null
					&& this.getCapacity == null && this.getPeriod == null && this.getZone == null
					&& this.getFirstDayOfWeek == null;
		}

		/** As an error message quotes it: what the shape sets. */
		@Override
		public String toString() {
			return new LimitOverride(this.getAlgorithm, this.getLimit, this.getWindow, this.getCapacity, null, null,
					this.getPeriod, this.getZone, this.getFirstDayOfWeek)
				.encode();
		}

	}

}
