package dev.ratelimit.spring.limits;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import org.jspecify.annotations.Nullable;

/**
 * Every override in force: of limits by name, and of limits' shapes in plans, by plan then limit name. Immutable;
 * kept in Redis (or in memory with {@code ratelimit.store=in-memory}) as one field per override.
 *
 * @param limits by limit name
 * @param plans by plan name, then limit name: shapes only
 */
public record LimitOverrides(Map<String, LimitOverride> limits, Map<String, Map<String, LimitOverride>> plans) {

	public static final LimitOverrides NONE = new LimitOverrides(Map.of(), Map.of());

	/** The separator of a plan's field: plan and limit names come from configuration keys and never hold it. */
	private static final String PLAN_FIELD = "plan\t";

	public LimitOverrides {
		limits = Map.copyOf(new TreeMap<>(limits));
		Map<String, Map<String, LimitOverride>> copy = new TreeMap<>();
		plans.forEach((plan, shapes) -> copy.put(plan, Map.copyOf(shapes)));
		plans = Map.copyOf(copy);
	}

	public boolean isEmpty() {
		return this.limits.isEmpty() && this.plans.isEmpty();
	}

	/** The override of the limit {@code name}, or of its shape in {@code plan} (not {@code null}), if any. */
	public @Nullable LimitOverride get(@Nullable String plan, String name) {
		if (plan == null) {
			return this.limits.get(name);
		}
		Map<String, LimitOverride> shapes = this.plans.get(plan);
		return (shapes != null) ? shapes.get(name) : null;
	}

	/** These overrides with {@code override} of {@code name} (in {@code plan}), or without it when {@code null}. */
	public LimitOverrides with(@Nullable String plan, String name, @Nullable LimitOverride override) {
		Map<String, LimitOverride> limits = new LinkedHashMap<>(this.limits);
		Map<String, Map<String, LimitOverride>> plans = new LinkedHashMap<>(this.plans);
		Map<String, LimitOverride> target = (plan != null) ? new LinkedHashMap<>(plans.getOrDefault(plan, Map.of()))
				: limits;
		if (override != null) {
			target.put(name, override);
		}
		else {
			target.remove(name);
		}
		if (plan != null) {
			if (target.isEmpty()) {
				plans.remove(plan);
			}
			else {
				plans.put(plan, target);
			}
		}
		return new LimitOverrides(limits, plans);
	}

	/** These overrides with every override of {@code others}, in place of their own of the same limits. */
	public LimitOverrides with(LimitOverrides others) {
		LimitOverrides merged = this;
		for (Map.Entry<String, LimitOverride> limit : others.limits.entrySet()) {
			merged = merged.with(null, limit.getKey(), limit.getValue());
		}
		for (Map.Entry<String, Map<String, LimitOverride>> plan : others.plans.entrySet()) {
			for (Map.Entry<String, LimitOverride> limit : plan.getValue().entrySet()) {
				merged = merged.with(plan.getKey(), limit.getKey(), limit.getValue());
			}
		}
		return merged;
	}

	/** {@code shape} of the limit {@code name}, as its override (if any) changes it. */
	LimitShape applyTo(String name, LimitShape shape) {
		LimitOverride override = this.limits.get(name);
		return (override != null) ? override.applyTo(shape) : shape;
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

	/** Every override as {@link #field} and {@link LimitOverride#encode}. */
	public Map<String, String> fields() {
		Map<String, String> fields = new TreeMap<>();
		this.limits.forEach((name, override) -> fields.put(field(null, name), override.encode()));
		this.plans.forEach((plan, shapes) -> shapes
			.forEach((name, override) -> fields.put(field(plan, name), override.encode())));
		return fields;
	}

	/**
	 * The overrides that {@code fields} store, as {@link #fields} writes them.
	 * @throws IllegalArgumentException naming the field that is not valid
	 */
	public static LimitOverrides of(Map<String, String> fields) {
		LimitOverrides overrides = NONE;
		for (Map.Entry<String, String> field : fields.entrySet()) {
			String plan = null;
			String name = field.getKey();
			if (name.startsWith(PLAN_FIELD)) {
				String[] parts = name.substring(PLAN_FIELD.length()).split("\t", 2);
				if (parts.length != 2) {
					throw new IllegalArgumentException("'" + name + "' is not an override's field");
				}
				plan = parts[0];
				name = parts[1];
			}
			try {
				overrides = overrides.with(plan, name, LimitOverride.decode(field.getValue()));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("The override of '" + name + "' is not valid: " + ex.getMessage(), ex);
			}
		}
		return overrides;
	}

}
