package dev.ratelimit.spring.limits;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.util.Assert;

/**
 * Plans per client ({@code ratelimit.plans}, {@code ratelimit.plan.*}): which plan a request has. The shapes of the
 * limits per plan are applied by {@link LimitResolver}, which builds every planned limit for every plan at startup.
 */
public final class PlanSelector {

	private static final Log logger = LogFactory.getLog(PlanSelector.class);

	private final Map<String, ? extends Map<String, ? extends LimitSettings.Shape>> shapes;

	private final @Nullable String defaultPlan;

	private final @Nullable Expression expression;

	private final AtomicBoolean warned = new AtomicBoolean();

	/**
	 * @param shapes limit shapes by plan name, then limit name; checked
	 * @param defaultPlan one of {@code shapes}' keys, or {@code null} when there are no plans
	 * @param expression yields the plan name; {@code null} when every request has the default plan
	 */
	PlanSelector(Map<String, ? extends Map<String, ? extends LimitSettings.Shape>> shapes, @Nullable String defaultPlan,
			@Nullable Expression expression) {
		this.shapes = shapes;
		this.defaultPlan = defaultPlan;
		this.expression = expression;
	}

	public static PlanSelector none() {
		return new PlanSelector(Map.of(), null, null);
	}

	/** The configured plan names, in configuration order. */
	public Set<String> names() {
		return this.shapes.keySet();
	}

	/**
	 * The plan of a request that names none; only when there are plans ({@link #names()} not empty): a limit is
	 * planned only then, and only a planned limit selects a plan.
	 */
	public String defaultPlan() {
		Assert.state(this.defaultPlan != null, "No plan is configured");
		return this.defaultPlan;
	}

	/** The plan expression, as written; {@code null} when unset. */
	public @Nullable String expression() {
		return (this.expression != null) ? this.expression.getExpressionString() : null;
	}

	/** The shape that {@code plan} gives the limit {@code name}, or {@code null} when it names none. */
	LimitSettings.@Nullable Shape shape(String plan, String name) {
		Map<String, ? extends LimitSettings.Shape> limits = this.shapes.get(plan);
		return (limits != null) ? limits.get(name) : null;
	}

	/** Whether any plan gives the limit {@code name} a shape. */
	boolean shapes(String name) {
		return this.shapes.values().stream().anyMatch((limits) -> limits.containsKey(name));
	}

	/**
	 * Checks that every limit a plan shapes exists, once all limits are known: a misspelt limit name under
	 * {@code ratelimit.plans} would otherwise leave the limit on its own shape without a word.
	 * @param limitNames the names of every limit of the application
	 * @throws InvalidConfigurationPropertyValueException naming the plan's entry
	 */
	public void requireKnownLimits(Set<String> limitNames) {
		for (Map.Entry<String, ? extends Map<String, ? extends LimitSettings.Shape>> plan : this.shapes.entrySet()) {
			for (String name : plan.getValue().keySet()) {
				if (!limitNames.contains(name)) {
					throw new InvalidConfigurationPropertyValueException("ratelimit.plans." + plan.getKey() + "." + name,
							plan.getValue().get(name), "No rate limit of the application is named '" + name
									+ "'; the limits are " + String.join(", ", new TreeSet<>(limitNames)) + ".");
				}
			}
		}
	}

	/**
	 * {@code limits} as the request's plan shapes them: unchanged when none is planned, without selecting a plan. The
	 * plan is told by the selector of the limits' configuration (a request's limits all come from one).
	 */
	public static List<ConfiguredLimit> forRequest(List<ConfiguredLimit> limits, EvaluationContext context) {
		ConfiguredLimit planned = null;
		for (ConfiguredLimit limit : limits) {
			if (limit.planned()) {
				planned = limit;
				break;
			}
		}
		if (planned == null) {
			return limits;
		}
		String plan = planned.planning().selector().select(context);
		return limits.stream().map((limit) -> limit.forPlan(plan)).toList();
	}

	/**
	 * The request's plan: what the expression yields when that is a configured plan, otherwise (null, empty, unknown,
	 * or the expression failed) the default plan. Never throws: a plan that cannot be told is the default, not a 500.
	 */
	public String select(EvaluationContext context) {
		if (this.expression == null) {
			return defaultPlan();
		}
		Object plan;
		try {
			plan = this.expression.getValue(context);
		}
		catch (RuntimeException ex) {
			if (this.warned.compareAndSet(false, true)) {
				logger.warn("Plan expression '" + this.expression.getExpressionString()
						+ "' (ratelimit.plan.expression) failed; the request has the default plan '" + this.defaultPlan
						+ "': " + ex + " (later failures are logged at DEBUG)");
			}
			else {
				logger.debug("Plan expression failed; the request has the default plan", ex);
			}
			return defaultPlan();
		}
		return (plan != null && this.shapes.containsKey(plan.toString())) ? plan.toString() : defaultPlan();
	}

}
