package dev.ratelimit.spring.limits;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Every override in force: of limits by name, of limits' shapes in plans, by plan then limit name, and of limits'
 * shapes for single clients. Immutable; kept in Redis (or in memory with {@code ratelimit.store=in-memory}) as one
 * field per override. Of one limit, for one client's request, the most specific applies over the others, each
 * changing only what it sets: the client's in the client's plan, the client's, the plan's, the limit's.
 *
 * @param limits by limit name
 * @param plans by plan name, then limit name: shapes only
 * @param clients by client tag ({@link OverrideTarget#clientTag()}): the client's own overrides, of limits (in
 * every plan) and of limits in one plan, shapes only; none of clients
 */
public record LimitOverrides(Map<String, LimitOverride> limits, Map<String, Map<String, LimitOverride>> plans,
		Map<String, LimitOverrides> clients) {

	public static final LimitOverrides NONE = new LimitOverrides(Map.of(), Map.of(), Map.of());

	/** The separator of a plan's field: plan and limit names come from configuration keys and never hold it. */
	private static final String PLAN_FIELD = "plan\t";

	/** The start of a client's field: {@code client<tab><tag><tab><plan, or nothing><tab><name>}. */
	private static final String CLIENT_FIELD = "client\t";

	public LimitOverrides {
		limits = Map.copyOf(new TreeMap<>(limits));
		Map<String, Map<String, LimitOverride>> copy = new TreeMap<>();
		plans.forEach((plan, shapes) -> copy.put(plan, Map.copyOf(shapes)));
		plans = Map.copyOf(copy);
		clients.forEach((tag, own) -> Assert.isTrue(own.clients.isEmpty(), "a client's overrides hold no clients"));
		clients = Map.copyOf(clients);
	}

	/** Overrides of limits and of their shapes in plans. */
	public LimitOverrides(Map<String, LimitOverride> limits, Map<String, Map<String, LimitOverride>> plans) {
		this(limits, plans, Map.of());
	}

	public boolean isEmpty() {
		return this.limits.isEmpty() && this.plans.isEmpty() && this.clients.isEmpty();
	}

	/** The override of the limit {@code name}, or of its shape in {@code plan} (not {@code null}), if any. */
	public @Nullable LimitOverride get(@Nullable String plan, String name) {
		if (plan == null) {
			return this.limits.get(name);
		}
		Map<String, LimitOverride> shapes = this.plans.get(plan);
		return (shapes != null) ? shapes.get(name) : null;
	}

	/** The override of {@code target}, if any. */
	public @Nullable LimitOverride get(OverrideTarget target) {
		if (target.clientTag() == null) {
			return get(target.plan(), target.name());
		}
		LimitOverrides own = this.clients.get(target.clientTag());
		return (own != null) ? own.get(target.plan(), target.name()) : null;
	}

	/** These overrides with {@code override} of {@code name} (in {@code plan}), or without it when {@code null}. */
	public LimitOverrides with(@Nullable String plan, String name, @Nullable LimitOverride override) {
		return with(OverrideTarget.inPlan(plan, name), override);
	}

	/** These overrides with {@code override} of {@code target}, or without it when {@code null}. */
	public LimitOverrides with(OverrideTarget target, @Nullable LimitOverride override) {
		String tag = target.clientTag();
		if (tag != null) {
			Map<String, LimitOverrides> clients = new LinkedHashMap<>(this.clients);
			LimitOverrides own = clients.getOrDefault(tag, NONE).with(target.plan(), target.name(), override);
			if (own.isEmpty()) {
				clients.remove(tag);
			}
			else {
				clients.put(tag, own);
			}
			return new LimitOverrides(this.limits, this.plans, clients);
		}
		Map<String, LimitOverride> limits = new LinkedHashMap<>(this.limits);
		Map<String, Map<String, LimitOverride>> plans = new LinkedHashMap<>(this.plans);
		String plan = target.plan();
		Map<String, LimitOverride> shapes = (plan != null) ? new LinkedHashMap<>(plans.getOrDefault(plan, Map.of()))
				: limits;
		if (override != null) {
			shapes.put(target.name(), override);
		}
		else {
			shapes.remove(target.name());
		}
		if (plan != null) {
			if (shapes.isEmpty()) {
				plans.remove(plan);
			}
			else {
				plans.put(plan, shapes);
			}
		}
		return new LimitOverrides(limits, plans, this.clients);
	}

	/** These overrides with every override of {@code others}, in place of their own of the same targets. */
	public LimitOverrides with(LimitOverrides others) {
		LimitOverrides merged = this;
		for (Map.Entry<OverrideTarget, LimitOverride> override : others.targets().entrySet()) {
			merged = merged.with(override.getKey(), override.getValue());
		}
		return merged;
	}

	/** Every override, by what it changes. */
	public Map<OverrideTarget, LimitOverride> targets() {
		Map<OverrideTarget, LimitOverride> targets = new LinkedHashMap<>();
		addTargets(targets, null);
		new TreeMap<>(this.clients).forEach((tag, own) -> own.addTargets(targets, tag));
		return targets;
	}

	private void addTargets(Map<OverrideTarget, LimitOverride> targets, @Nullable String tag) {
		this.limits.forEach((name, override) -> targets.put(new OverrideTarget(name, null, tag), override));
		this.plans.forEach((plan, shapes) -> shapes
			.forEach((name, override) -> targets.put(new OverrideTarget(name, plan, tag), override)));
	}

	/** {@code shape} of the limit {@code name}, as its override (if any) changes it. */
	LimitShape applyTo(String name, LimitShape shape) {
		LimitOverride override = this.limits.get(name);
		return (override != null) ? override.applyTo(shape) : shape;
	}

	/**
	 * The overrides of the limit {@code name} in {@code plan} ({@code null}: a limit without plans) of each client that
	 * has one: the client's, then the client's in {@code plan}, each to apply over the shape before it.
	 * @return by client tag; empty when no client has an override of the limit
	 */
	Map<String, List<LimitOverride>> ofClients(String name, @Nullable String plan) {
		Map<String, List<LimitOverride>> clients = new LinkedHashMap<>();
		this.clients.forEach((tag, own) -> {
			List<LimitOverride> overrides = new ArrayList<>(2);
			LimitOverride any = own.limits.get(name);
			if (any != null) {
				overrides.add(any);
			}
			LimitOverride inPlan = (plan != null) ? own.get(plan, name) : null;
			if (inPlan != null) {
				overrides.add(inPlan);
			}
			if (!overrides.isEmpty()) {
				clients.put(tag, overrides);
			}
		});
		return clients;
	}

	/** {@code mode} of the limit {@code name}, or its override's. */
	LimitMode applyTo(String name, LimitMode mode) {
		LimitOverride override = this.limits.get(name);
		return (override != null && override.mode() != null) ? override.mode() : mode;
	}

	/** {@code failurePolicy} of the limit {@code name}, or its override's. */
	FailurePolicy applyTo(String name, FailurePolicy failurePolicy) {
		LimitOverride override = this.limits.get(name);
		return (override != null && override.failurePolicy() != null) ? override.failurePolicy() : failurePolicy;
	}

	/**
	 * The plans' shapes ({@code ratelimit.plans.<plan>.<limit>}) with these overrides; an override of a plan that the
	 * configuration no longer has is left aside ({@link LimitConfigurations}).
	 */
	Map<String, Map<String, LimitSettings.Shape>> applyTo(
			Map<String, ? extends Map<String, ? extends LimitSettings.Shape>> configured) {
		Map<String, Map<String, LimitSettings.Shape>> plans = new LinkedHashMap<>();
		configured.forEach((plan, shapes) -> plans.put(plan, new LinkedHashMap<>(shapes)));
		this.plans.forEach((plan, shapes) -> {
			Map<String, LimitSettings.Shape> planShapes = plans.get(plan);
			if (planShapes != null) {
				shapes.forEach((name, override) -> planShapes.put(name, override.over(planShapes.get(name))));
			}
		});
		return plans;
	}

	/** The field that stores the override of {@code name} (in {@code plan}). */
	public static String field(@Nullable String plan, String name) {
		return (plan != null) ? PLAN_FIELD + plan + "\t" + name : name;
	}

	/** The field that stores the override of {@code target}. */
	public static String field(OverrideTarget target) {
		if (target.clientTag() == null) {
			return field(target.plan(), target.name());
		}
		return CLIENT_FIELD + target.clientTag() + "\t" + ((target.plan() != null) ? target.plan() : "") + "\t"
				+ target.name();
	}

	/** Every override as {@link #field} and {@link LimitOverride#encode}. */
	public Map<String, String> fields() {
		Map<String, String> fields = new TreeMap<>();
		targets().forEach((target, override) -> fields.put(field(target), override.encode()));
		return fields;
	}

	/**
	 * The overrides that {@code fields} store, as {@link #fields} writes them.
	 * @throws IllegalArgumentException naming the field that is not valid
	 */
	public static LimitOverrides of(Map<String, String> fields) {
		LimitOverrides overrides = NONE;
		for (Map.Entry<String, String> field : fields.entrySet()) {
			OverrideTarget target = target(field.getKey());
			try {
				overrides = overrides.with(target, LimitOverride.decode(field.getValue()));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("The override of '" + target.name() + "' is not valid: "
						+ ex.getMessage(), ex);
			}
		}
		return overrides;
	}

	private static OverrideTarget target(String field) {
		if (field.startsWith(CLIENT_FIELD)) {
			String[] parts = field.substring(CLIENT_FIELD.length()).split("\t", 3);
			if (parts.length != 3 || parts[0].isEmpty() || parts[2].isEmpty()) {
				throw new IllegalArgumentException("'" + field + "' is not an override's field");
			}
			return new OverrideTarget(parts[2], parts[1].isEmpty() ? null : parts[1], parts[0]);
		}
		if (field.startsWith(PLAN_FIELD)) {
			String[] parts = field.substring(PLAN_FIELD.length()).split("\t", 2);
			if (parts.length != 2) {
				throw new IllegalArgumentException("'" + field + "' is not an override's field");
			}
			return new OverrideTarget(parts[1], parts[0], null);
		}
		return OverrideTarget.limit(field);
	}

}
