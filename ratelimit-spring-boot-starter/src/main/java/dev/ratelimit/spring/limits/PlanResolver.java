package dev.ratelimit.spring.limits;

import java.util.Map;

import dev.ratelimit.core.LimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.util.StringUtils;

/** Checks {@code ratelimit.plan.*} and {@code ratelimit.plans.*} at startup and makes the {@link PlanSelector} of them. */
final class PlanResolver {

	/** The limit of a name in a shape, at a cost: {@link LimitResolver}'s one way of making a limit. */
	interface Definitions {

		LimitRequest definition(String name, LimitShape shape, long cost);

	}

	private final LimitExpressionParser expressions;

	private final LimitShape defaults;

	private final Definitions definitions;

	PlanResolver(LimitExpressionParser expressions, LimitShape defaults, Definitions definitions) {
		this.expressions = expressions;
		this.defaults = defaults;
		this.definitions = definitions;
	}

	/**
	 * @throws InvalidConfigurationPropertyValueException naming the property when the default plan is not a plan, a
	 * plan expression is not valid SpEL or refers to what does not exist, or a plan's limit has an invalid shape
	 */
	PlanSelector plans(LimitSettings.Plan plan, Map<String, ? extends Map<String, ? extends LimitSettings.Shape>> shapes) {
		if (shapes.isEmpty()) {
			if (StringUtils.hasText(plan.getExpression()) || StringUtils.hasText(plan.getDefaultPlan())) {
				boolean expression = StringUtils.hasText(plan.getExpression());
				throw new InvalidConfigurationPropertyValueException(
						expression ? "ratelimit.plan.expression" : "ratelimit.plan.default-plan",
						expression ? plan.getExpression() : plan.getDefaultPlan(),
						"No plan is configured: define the limits of each plan under ratelimit.plans.<plan>.<limit>.");
			}
			return PlanSelector.none();
		}
		String defaultPlan = StringUtils.hasText(plan.getDefaultPlan()) ? plan.getDefaultPlan()
				: shapes.keySet().iterator().next();
		if (!shapes.containsKey(defaultPlan)) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.plan.default-plan", defaultPlan,
					"Not a configured plan; use one of " + String.join(", ", shapes.keySet()) + ".");
		}
		Expression expression = expression(plan);
		checkShapes(shapes);
		return new PlanSelector(shapes, defaultPlan, expression);
	}

	private @Nullable Expression expression(LimitSettings.Plan plan) {
		try {
			return this.expressions.parse(plan.getExpression(), KeyVariables.ofRequest());
		}
		catch (ParseException | IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.plan.expression", plan.getExpression(),
					"Not a valid plan expression: "
							+ String.valueOf(ex.getMessage()).replace("key expression", "plan expression"));
		}
	}

	/** Each plan's limit is valid on the defaults, at cost 1; each limit that it shapes is checked again with it. */
	private void checkShapes(Map<String, ? extends Map<String, ? extends LimitSettings.Shape>> shapes) {
		for (Map.Entry<String, ? extends Map<String, ? extends LimitSettings.Shape>> entry : shapes.entrySet()) {
			for (Map.Entry<String, ? extends LimitSettings.Shape> limit : entry.getValue().entrySet()) {
				LimitSettings.Shape shape = limit.getValue();
				if (shape.getPeriod() == null && (shape.getZone() != null || shape.getFirstDayOfWeek() != null)) {
					// the zone or first day of the limit's own period: checked with the limit it shapes
					continue;
				}
				try {
					this.definitions.definition(limit.getKey(), this.defaults.with(limit.getValue()), 1);
				}
				catch (IllegalArgumentException ex) {
					throw LimitResolver.invalidProperty("ratelimit.plans." + entry.getKey() + "." + limit.getKey(),
							limit.getValue(), ex);
				}
			}
		}
	}

}
