package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.limits.LimitSettings;
import org.jspecify.annotations.Nullable;

/**
 * How a request's plan is chosen, for limits whose shape depends on the plan (ratelimit.plans).
 */
public class PlanProperties implements LimitSettings.Plan {

	/**
	 * SpEL expression that yields the request's plan name, with #request, #principal, #exchange (WebFlux), bean
	 * references (@bean) and, on annotated methods, the arguments by name; for example
	 * "@apiKeys.planOf(#request.getHeader('X-Api-Key'))". Null, empty, failing or naming no configured plan means
	 * the default plan. When unset, every request has the default plan.
	 */
	private @Nullable String expression;

	/**
	 * The plan of requests whose plan is unknown; must be one of ratelimit.plans. Defaults to the first plan
	 * configured.
	 */
	private @Nullable String defaultPlan;

	public @Nullable String getExpression() {
		return this.expression;
	}

	public void setExpression(@Nullable String expression) {
		this.expression = expression;
	}

	public @Nullable String getDefaultPlan() {
		return this.defaultPlan;
	}

	public void setDefaultPlan(@Nullable String defaultPlan) {
		this.defaultPlan = defaultPlan;
	}

}
