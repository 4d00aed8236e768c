package dev.ratelimit.spring.limits;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;

/**
 * What the limits read of the configuration under {@code ratelimit}: the defaults, the filter rules and the plans.
 * The starter's configuration properties implement it, so that the limits depend on what they read rather than on
 * how it is bound; the names and meanings are those of the properties.
 */
public interface LimitSettings {

	/** {@code ratelimit.defaults}. */
	Defaults getDefaults();

	/** {@code ratelimit.plan}. */
	Plan getPlan();

	/** {@code ratelimit.plans}: plan name → limit name → shape, in configuration order. */
	Map<String, ? extends Map<String, ? extends Shape>> getPlans();

	/** The shape of a limit, of which a rule or a plan sets some parts: {@code null} where unset. */
	interface Shape {

		Algorithm getAlgorithm();

		Long getLimit();

		Duration getWindow();

		Long getCapacity();

	}

	/** {@code ratelimit.defaults}: every value set. */
	interface Defaults {

		Algorithm getAlgorithm();

		long getLimit();

		Duration getWindow();

		Long getCapacity();

		long getCost();

		FailurePolicy getFailurePolicy();

		LimitMode getMode();

		Duration getMaxWait();

	}

	/** One of {@code ratelimit.filter.rules}: {@code null} where unset. */
	interface Rule extends Shape {

		String getName();

		List<String> getPaths();

		List<String> getMethods();

		Long getCost();

		String getKey();

		FailurePolicy getFailurePolicy();

		LimitMode getMode();

	}

	/** {@code ratelimit.plan}. */
	interface Plan {

		String getExpression();

		String getDefaultPlan();

	}

}
