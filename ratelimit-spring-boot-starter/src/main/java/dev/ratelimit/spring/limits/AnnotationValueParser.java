package dev.ratelimit.spring.limits;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Locale;
import java.util.function.UnaryOperator;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.spring.RateLimited;
import org.jspecify.annotations.Nullable;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.StringUtils;

/**
 * The string attributes of {@link dev.ratelimit.spring.RateLimited}, parsed as {@code application.yml} writes the
 * same values ({@code token-bucket}, {@code fail-local}, {@code 60s}), each with a message that says what to write
 * instead.
 */
final class AnnotationValueParser {

	private AnnotationValueParser() {
	}

	/** A duration with its unit: a bare "60" would be 60 ms to Spring, rarely what its writer meant. */
	static Duration parseWindow(String value) {
		if (value.trim().matches("-?\\d+")) {
			throw new IllegalArgumentException("window '" + value + "' has no unit; write it as 60s, 500ms, 1m or PT1M");
		}
		return DurationStyle.detectAndParse(value);
	}

	/** A max-wait: {@code 0} alone, or a duration with its unit, not negative. */
	static Duration parseMaxWait(String value) {
		if (value.trim().equals("0")) {
			return Duration.ZERO;
		}
		if (value.trim().matches("-?\\d+")) {
			throw new IllegalArgumentException("maxWait '" + value + "' has no unit; write it as 2s, 500ms or PT2S");
		}
		Duration wait;
		try {
			wait = DurationStyle.detectAndParse(value);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("maxWait '" + value + "' is not a duration; write it as 2s, 500ms or PT2S");
		}
		if (wait.isNegative()) {
			throw new IllegalArgumentException("maxWait '" + value + "' is negative; use 0 for no wait");
		}
		return wait;
	}

	/**
	 * The shape {@code annotation} sets, each attribute with its placeholders resolved by {@code resolve}: {@code null}
	 * where unset, for {@link LimitShape#with} to fall back on the defaults.
	 */
	static LimitSettings.Shape shape(RateLimited annotation, UnaryOperator<String> resolve) {
		return new AnnotationShape(
				StringUtils.hasText(annotation.algorithm()) ? parseAlgorithm(resolve.apply(annotation.algorithm())) : null,
				(annotation.limit() != RateLimited.UNSET) ? annotation.limit() : null,
				StringUtils.hasText(annotation.window()) ? parseWindow(resolve.apply(annotation.window())) : null,
				(annotation.capacity() != RateLimited.UNSET) ? annotation.capacity() : null,
				StringUtils.hasText(annotation.period()) ? CalendarPeriod.unit(resolve.apply(annotation.period())) : null,
				StringUtils.hasText(annotation.zone()) ? CalendarPeriod.zone(resolve.apply(annotation.zone())) : null,
				StringUtils.hasText(annotation.firstDayOfWeek())
						? parseDayOfWeek(resolve.apply(annotation.firstDayOfWeek())) : null);
	}

	private record AnnotationShape(@Nullable Algorithm getAlgorithm, @Nullable Long getLimit,
			@Nullable Duration getWindow, @Nullable Long getCapacity, CalendarPeriod.@Nullable Unit getPeriod,
			@Nullable ZoneId getZone, @Nullable DayOfWeek getFirstDayOfWeek) implements LimitSettings.Shape {
	}

	static DayOfWeek parseDayOfWeek(String value) {
		try {
			return DayOfWeek.valueOf(value.trim().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("firstDayOfWeek '" + value + "' is no day of the week; use monday to sunday");
		}
	}

	static Algorithm parseAlgorithm(String value) {
		try {
			return Algorithm.valueOf(value.trim().replace('-', '_').toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("unknown algorithm '" + value
					+ "'; use fixed-window, sliding-log, sliding-window-counter, token-bucket or concurrency");
		}
	}

	static LimitMode parseMode(String value) {
		try {
			return LimitMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("unknown mode '" + value + "'; use enforce or shadow");
		}
	}

	static FailurePolicy parseFailurePolicy(String value) {
		try {
			return FailurePolicy.valueOf(value.trim().replace('-', '_').toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"unknown failure policy '" + value + "'; use fail-open, fail-closed or fail-local");
		}
	}

}
