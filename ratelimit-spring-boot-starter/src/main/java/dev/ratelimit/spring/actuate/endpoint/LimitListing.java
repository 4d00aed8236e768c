package dev.ratelimit.spring.actuate.endpoint;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Limit;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Limits;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.PlanSelection;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.limits.PlanSelector;
import dev.ratelimit.spring.limits.Terms;

/**
 * The endpoint's list of every limit ({@code GET /actuator/ratelimits}): each source's limit in each plan's shape, as
 * overridden, with the plans and the overrides stored.
 */
final class LimitListing {

	private final LimitConfigurations configurations;

	private final String store;

	private final OverrideOperation overrides;

	LimitListing(LimitConfigurations configurations, String store, OverrideOperation overrides) {
		this.configurations = configurations;
		this.store = store;
		this.overrides = overrides;
	}

	Limits limits() {
		LimitLookup lookup = new LimitLookup(this.configurations.current());
		List<Limit> limits = new ArrayList<>();
		for (ConfiguredLimit limit : lookup.all()) {
			for (ConfiguredLimit shaped : lookup.shapes(limit)) {
				LimitDefinition definition = shaped.request().definition();
				limits.add(new Limit(definition.name(), limit.source(), shaped.plan(),
						Terms.of(definition.algorithm()), definition.limit(), definition.window().toString(),
						LimitLookup.capacity(definition), shaped.request().cost(),
						(limit.key() != null) ? limit.key().getExpressionString() : null,
						Terms.of(limit.failurePolicy()),
						limit.shadow() ? "shadow" : "enforce",
						(definition.usage() != null) ? definition.usage().period().toString() : null));
			}
		}
		PlanSelector plans = lookup.plans();
		return new Limits(this.store, plans.names().isEmpty() ? null
				: new PlanSelection(plans.expression(), plans.defaultPlan(), List.copyOf(plans.names())),
				limits, this.overrides.overrides());
	}

}
