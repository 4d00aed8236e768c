package dev.ratelimit.spring.limits;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.InvalidLimitException;
import dev.ratelimit.core.LimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * A limit's other shapes, made once per configuration: its shape in every plan ({@code ratelimit.plans} and their
 * overrides), and in each of these its shape for every client whose overrides change it. Each shape keeps the limit's
 * cost, mode, key and handling, and is checked as the limit itself is.
 */
final class LimitShaping {

	private final PlanSelector plans;

	private final LimitOverrides overrides;

	private final LimitDefinitions definitions;

	private final FailLocalShareCalculator shares;

	LimitShaping(PlanSelector plans, LimitOverrides overrides, LimitDefinitions definitions,
			FailLocalShareCalculator shares) {
		this.plans = plans;
		this.overrides = overrides;
		this.definitions = definitions;
		this.shares = shares;
	}

	/**
	 * {@code base} with its shape in every plan, when a plan names it: the plan's algorithm, limit, window and
	 * capacity, each falling back to {@code base}'s own; the default plan's shape for a plan that does not name it.
	 * Then, in each, its shapes for single clients.
	 * @param own the shape {@code base} was made of, before the defaults of its capacity
	 * @throws InvalidConfigurationPropertyValueException naming the plan's property when a shape cannot take
	 * {@code base}'s cost or fail-local share
	 * @throws IllegalStateException naming the client's tag when its override makes the limit invalid
	 */
	ConfiguredLimit shape(ConfiguredLimit base, LimitShape own) {
		if (!this.plans.shapes(base.name())) {
			return forClients(base, own, null);
		}
		LimitRequest ownRequest = base.request();
		LimitShape ownShape = new LimitShape(ownRequest.definition().algorithm(), ownRequest.definition().limit(),
				ownRequest.definition().window(), null, ownRequest.definition().calendar());
		Map<String, ConfiguredLimit> byPlan = new LinkedHashMap<>();
		for (String plan : this.plans.names()) {
			String shaping = (this.plans.shape(plan, base.name()) != null) ? plan : this.plans.defaultPlan();
			LimitSettings.Shape shape = this.plans.shape(shaping, base.name());
			if (shape == null) {
				ConfiguredLimit inPlan = base.inPlan(new ConfiguredLimit.Budget(ownRequest, base.localShare(), plan));
				byPlan.put(plan, forClients(inPlan, own, plan));
				continue;
			}
			LimitShape planShape;
			ConfiguredLimit inPlan;
			try {
				planShape = ownShape.with(shape);
				inPlan = base.inPlan(budget(base, planShape, plan));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException("ratelimit.plans." + shaping + "." + base.name(),
						shape, ex.getMessage() + " (the cost and failure policy are those of " + base.source() + ")");
			}
			byPlan.put(plan, forClients(inPlan, planShape, plan));
		}
		return base.withPlans(this.plans, byPlan);
	}

	/**
	 * {@code limit} (in {@code plan}'s shape, {@code shape}) with its shape for each client whose overrides change it.
	 * @throws IllegalStateException naming the client's tag when its override makes the limit invalid
	 */
	private ConfiguredLimit forClients(ConfiguredLimit limit, LimitShape shape, @Nullable String plan) {
		Map<String, List<LimitOverride>> clients = this.overrides.ofClients(limit.name(), plan);
		if (clients.isEmpty()) {
			return limit;
		}
		Map<String, ConfiguredLimit> byClient = new LinkedHashMap<>();
		clients.forEach((tag, overrides) -> {
			try {
				LimitShape client = shape;
				for (LimitOverride override : overrides) {
					client = override.applyTo(client);
				}
				byClient.put(tag, limit.inPlan(budget(limit, client, plan)));
			}
			catch (IllegalArgumentException ex) {
				String field = (ex instanceof InvalidLimitException invalid) ? invalid.getField()
						: null;
				throw new IllegalStateException("Invalid override of rate limit '" + limit.name() + "' for client "
						+ tag + ((plan != null) ? " in plan '" + plan + "'" : "") + ((field != null) ? " (" + field + ")" : "")
						+ ": " + ex.getMessage() + " (the cost and failure policy are those of " + limit.source() + ")",
						ex);
			}
		});
		return limit.withClients(byClient);
	}

	/**
	 * {@code limit}'s budget in {@code shape}, at its cost, mode and failure policy, recording the usage it records (a
	 * plan's or a client's shape of a limit counts in the limit's one usage set).
	 */
	private ConfiguredLimit.Budget budget(ConfiguredLimit limit, LimitShape shape, @Nullable String plan) {
		LimitRequest request = LimitUsage.recording(
				this.definitions.definition(limit.name(), shape, limit.request().cost()).withShadow(limit.shadow()),
				limit.request().definition().usage());
		return new ConfiguredLimit.Budget(request, this.shares.of(request, limit.failurePolicy()), plan);
	}

}
