package dev.ratelimit.spring.openapi;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.StringJoiner;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.Terms;

import org.springframework.boot.convert.DurationStyle;

/**
 * A limit as a reader of the document sees it: its name and shape, {@code api: 100 per 1m (token bucket)},
 * {@code quota: 1000 per day in Europe/Berlin (fixed window)}, {@code exports: 2 requests in flight at once
 * (concurrency)}; a planned limit's shape in each plan.
 */
final class LimitText {

	private static final List<ChronoUnit> UNITS = List.of(ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES,
			ChronoUnit.SECONDS);

	private LimitText() {
	}

	static String of(ConfiguredLimit limit) {
		if (!limit.planned()) {
			return limit.name() + ": " + shape(limit);
		}
		StringJoiner plans = new StringJoiner(", ");
		for (String plan : limit.planning().selector().names()) {
			plans.add(shape(limit.forPlan(plan)) + " in plan " + plan);
		}
		return limit.name() + ": " + plans;
	}

	private static String shape(ConfiguredLimit limit) {
		LimitDefinition definition = limit.request().definition();
		if (!definition.algorithm().rate()) {
			return definition.limit() + " requests in flight at once (" + Terms.of(definition.algorithm()) + ")";
		}
		String per = (definition.calendar() != null) ? definition.calendar().toString() : window(definition.window());
		String capacity = (definition.algorithm() == Algorithm.TOKEN_BUCKET && definition.capacity() != definition.limit())
				? ", capacity " + definition.capacity() : "";
		// a cost settled after the call is provisional: what a request takes is known only then
		String cost = (limit.request().cost() != 1 && limit.settleCost() == null && limit.settleCostHeader() == null)
				? ", " + limit.request().cost() + " per request" : "";
		return definition.limit() + " per " + per + " (" + Terms.of(definition.algorithm()).replace('-', ' ') + capacity
				+ ")" + cost;
	}

	/** As configuration writes it, in the largest unit that divides it: {@code 1m}, {@code 90s}, {@code 500ms}. */
	static String window(Duration window) {
		for (ChronoUnit unit : UNITS) {
			if (window.toMillis() % unit.getDuration().toMillis() == 0) {
				return DurationStyle.SIMPLE.print(window, unit);
			}
		}
		return DurationStyle.SIMPLE.print(window, ChronoUnit.MILLIS);
	}

}
