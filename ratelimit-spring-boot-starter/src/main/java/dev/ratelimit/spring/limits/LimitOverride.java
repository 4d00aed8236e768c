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
 * Of a limit's shape in one plan, only the shape.
 *
 * @param algorithm the algorithm
 * @param limit units per window, at least 1
 * @param window the window
 * @param capacity the token bucket's capacity; dropped when {@code algorithm} makes the limit another algorithm
 * @param mode enforce or shadow
 * @param failurePolicy what the limit does when Redis fails
 */
public record LimitOverride(@Nullable Algorithm algorithm, @Nullable Long limit, @Nullable Duration window,
		@Nullable Long capacity, @Nullable LimitMode mode, @Nullable FailurePolicy failurePolicy) {

	/** Whether it changes nothing. */
	public boolean isEmpty() {
		return this.algorithm == null && this.limit == null && this.window == null && this.capacity == null
				&& this.mode == null && this.failurePolicy == null;
	}

	/** Whether it changes only the shape (what a plan may change). */
	public boolean shapeOnly() {
		return this.mode == null && this.failurePolicy == null;
	}

	/**
	 * {@code shape} with this override's parts. A limit that the override makes another algorithm than the token
	 * bucket loses the bucket's configured capacity; a capacity the override sets stays, to be checked as startup
	 * checks it (a capacity applies to the token bucket only).
	 */
	LimitShape applyTo(LimitShape shape) {
		return new LimitShape((this.algorithm != null) ? this.algorithm : shape.algorithm(),
				(this.limit != null) ? this.limit : shape.limit(), (this.window != null) ? this.window : shape.window(),
				capacity(shape.capacity()), (this.window != null) ? null : shape.calendar());
	}

	/** A plan's shape of a limit ({@code configured}, or none) with this override's parts, as {@link #applyTo}. */
	LimitSettings.Shape over(LimitSettings.@Nullable Shape configured) {
		Algorithm algorithm = (this.algorithm != null) ? this.algorithm
				: (configured != null) ? configured.getAlgorithm() : null;
		Long capacity = capacity((configured != null) ? configured.getCapacity() : null);
		// a calendar period the plan sets stays, unless this override sets a window instead
		LimitSettings.Shape period = (this.window == null) ? configured : null;
		return new PlanShape(algorithm, (this.limit != null) ? this.limit : (configured != null) ? configured.getLimit() : null,
				(this.window != null) ? this.window : (configured != null) ? configured.getWindow() : null, capacity,
				(period != null) ? period.getPeriod() : null, (period != null) ? period.getZone() : null,
				(period != null) ? period.getFirstDayOfWeek() : null);
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
		if (this.algorithm != null) {
			parts.add("algorithm=" + Terms.of(this.algorithm));
		}
		if (this.limit != null) {
			parts.add("limit=" + this.limit);
		}
		if (this.window != null) {
			parts.add("window=" + this.window);
		}
		if (this.capacity != null) {
			parts.add("capacity=" + this.capacity);
		}
		if (this.mode != null) {
			parts.add("mode=" + Terms.of(this.mode));
		}
		if (this.failurePolicy != null) {
			parts.add("failure-policy=" + Terms.of(this.failurePolicy));
		}
		return parts.toString();
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
		return of(parts.remove("algorithm"), number(parts.remove("limit")), parts.remove("window"),
				number(parts.remove("capacity")), parts.remove("mode"), unknownOr(parts, parts.remove("failure-policy")));
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

	private static @Nullable String unknownOr(Map<String, String> rest, @Nullable String value) {
		if (!rest.isEmpty()) {
			throw new IllegalArgumentException("unknown " + rest.keySet() + "; an override sets algorithm, limit,"
					+ " window, capacity, mode or failure-policy");
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

	/** A plan's shape of a limit, overridden. */
	private record PlanShape(@Nullable Algorithm getAlgorithm, @Nullable Long getLimit, @Nullable Duration getWindow,
			@Nullable Long getCapacity, CalendarPeriod.@Nullable Unit getPeriod, @Nullable ZoneId getZone,
			@Nullable DayOfWeek getFirstDayOfWeek) implements LimitSettings.Shape {

		/** As an error message quotes it: what the shape sets. */
		@Override
		public String toString() {
			return new LimitOverride(this.getAlgorithm, this.getLimit, this.getWindow, this.getCapacity, null, null)
				.encode();
		}

	}

}
