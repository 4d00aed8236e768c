package dev.ratelimit.spring.limits;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InvalidLimitException;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.RateLimited;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.StringUtils;

/**
 * Turns {@link RateLimited} annotations and filter rules into {@link ConfiguredLimit}s, filling unset attributes from
 * {@code ratelimit.defaults}, and rejects invalid values with a message naming the property or the method.
 */
public final class LimitResolver {

	private final LimitSettings.Defaults defaults;

	private final Environment environment;

	private final BeanFactory beanFactory;

	/**
	 * {@code ratelimit.fail-local.instances}: fail-local limits apply their limit divided by it; {@code null} with the
	 * in-memory store, which never fails, so that no limit has a local share.
	 */
	private final Integer failLocalInstances;

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final Plans plans;

	public LimitResolver(LimitSettings properties, Integer failLocalInstances, Environment environment,
			BeanFactory beanFactory) {
		this(properties.getDefaults(), failLocalInstances, environment, beanFactory, properties.getPlan(),
				properties.getPlans());
	}

	private LimitResolver(LimitSettings.Defaults defaults, Integer failLocalInstances, Environment environment,
			BeanFactory beanFactory, LimitSettings.Plan plan,
			Map<String, ? extends Map<String, ? extends LimitSettings.Shape>> plans) {
		if (failLocalInstances != null && failLocalInstances < 1) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.fail-local.instances", failLocalInstances,
					"At least 1: the number of instances that share a fail-local limit while Redis fails.");
		}
		this.defaults = defaults;
		this.failLocalInstances = failLocalInstances;
		this.environment = environment;
		this.beanFactory = beanFactory;
		checkDefaults();
		this.plans = plans(plan, plans);
	}

	/** The plans, checked. */
	public Plans plans() {
		return this.plans;
	}

	/**
	 * @throws IllegalStateException naming {@code source} when a value is invalid
	 */
	public ConfiguredLimit fromAnnotation(RateLimited annotation, String defaultName, String source, KeyVariables variables) {
		try {
			String name = StringUtils.hasText(annotation.name()) ? resolve(annotation.name()) : defaultName;
			Algorithm algorithm = StringUtils.hasText(annotation.algorithm())
					? parseAlgorithm(resolve(annotation.algorithm())) : this.defaults.getAlgorithm();
			long limit = (annotation.limit() != RateLimited.UNSET) ? annotation.limit() : this.defaults.getLimit();
			Duration window = StringUtils.hasText(annotation.window()) ? parseWindow(resolve(annotation.window()))
					: this.defaults.getWindow();
			Long capacity = (annotation.capacity() != RateLimited.UNSET) ? Long.valueOf(annotation.capacity()) : null;
			long cost = (annotation.cost() != RateLimited.UNSET) ? annotation.cost() : this.defaults.getCost();
			FailurePolicy failurePolicy = StringUtils.hasText(annotation.failurePolicy())
					? parseFailurePolicy(resolve(annotation.failurePolicy())) : this.defaults.getFailurePolicy();
			LimitMode mode = StringUtils.hasText(annotation.mode()) ? parseMode(resolve(annotation.mode()))
					: this.defaults.getMode();
			LimitDefinition definition = definition(name, algorithm, limit, window, capacity, cost)
				.withShadow(mode == LimitMode.SHADOW);
			Expression key = parseKey(annotation.key(), variables);
			Duration maxWait = StringUtils.hasText(annotation.maxWait()) ? parseMaxWait(resolve(annotation.maxWait()))
					: null;
			return planned(new ConfiguredLimit(definition, key, failurePolicy, source,
					StringUtils.hasText(annotation.name()), key != null && readsArguments(((SpelExpression) key).getAST()),
					localShare(definition, failurePolicy), null, Map.of(), maxWait, charge(annotation, variables)));
		}
		catch (IllegalArgumentException | ParseException ex) {
			throw new IllegalStateException("Invalid " + source + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * @throws InvalidConfigurationPropertyValueException naming the rule's property when a value is invalid
	 */
	public ConfiguredLimit fromRule(LimitSettings.Rule rule, String property) {
		if (rule.getPaths().isEmpty()) {
			throw new InvalidConfigurationPropertyValueException(property + ".paths", rule.getPaths(),
					"A filter rule needs at least one path pattern, such as '/api/**'.");
		}
		// The default name is the first path, with its variables as '*': braces would break the key's hash tag.
		String name = StringUtils.hasText(rule.getName()) ? rule.getName()
				: rule.getPaths().get(0).replaceAll("\\{[^}]*}", "*");
		Expression key;
		try {
			key = parseKey(rule.getKey(), KeyVariables.ofRequest());
		}
		catch (ParseException | IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".key", rule.getKey(),
					"Not a valid key expression: " + ex.getMessage());
		}
		try {
			LimitMode mode = (rule.getMode() != null) ? rule.getMode() : this.defaults.getMode();
			LimitDefinition definition = definition(name,
					(rule.getAlgorithm() != null) ? rule.getAlgorithm() : this.defaults.getAlgorithm(),
					(rule.getLimit() != null) ? rule.getLimit() : this.defaults.getLimit(),
					(rule.getWindow() != null) ? rule.getWindow() : this.defaults.getWindow(), rule.getCapacity(),
					(rule.getCost() != null) ? rule.getCost() : this.defaults.getCost())
				.withShadow(mode == LimitMode.SHADOW);
			FailurePolicy failurePolicy = (rule.getFailurePolicy() != null) ? rule.getFailurePolicy()
					: this.defaults.getFailurePolicy();
			LimitDefinition localShare;
			try {
				localShare = localShare(definition, failurePolicy);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(property + ".failure-policy", failurePolicy,
						ex.getMessage());
			}
			return planned(new ConfiguredLimit(definition, key, failurePolicy, property,
					StringUtils.hasText(rule.getName()), false, localShare, null, Map.of(), null, null));
		}
		catch (IllegalArgumentException ex) {
			throw invalidProperty(property, rule, ex);
		}
	}

	private void checkDefaults() {
		if (this.defaults.getMaxWait() == null || this.defaults.getMaxWait().isNegative()) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.defaults.max-wait",
					this.defaults.getMaxWait(), "A duration of at least 0 (0: a denied call never waits).");
		}
		try {
			definition("defaults", this.defaults.getAlgorithm(), this.defaults.getLimit(), this.defaults.getWindow(),
					this.defaults.getCapacity(), this.defaults.getCost());
		}
		catch (IllegalArgumentException ex) {
			throw invalidProperty("ratelimit.defaults", this.defaults, ex);
		}
	}

	/**
	 * @throws InvalidConfigurationPropertyValueException naming the property when the default plan is not a plan, a
	 * plan expression is not valid SpEL or refers to what does not exist, or a plan's limit has an invalid shape
	 */
	private Plans plans(LimitSettings.Plan plan, Map<String, ? extends Map<String, ? extends LimitSettings.Shape>> shapes) {
		if (shapes.isEmpty()) {
			if (StringUtils.hasText(plan.getExpression()) || StringUtils.hasText(plan.getDefaultPlan())) {
				throw new InvalidConfigurationPropertyValueException(
						StringUtils.hasText(plan.getExpression()) ? "ratelimit.plan.expression"
								: "ratelimit.plan.default-plan",
						StringUtils.hasText(plan.getExpression()) ? plan.getExpression() : plan.getDefaultPlan(),
						"No plan is configured: define the limits of each plan under ratelimit.plans.<plan>.<limit>.");
			}
			return Plans.none();
		}
		String defaultPlan = StringUtils.hasText(plan.getDefaultPlan()) ? plan.getDefaultPlan()
				: shapes.keySet().iterator().next();
		if (!shapes.containsKey(defaultPlan)) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.plan.default-plan", defaultPlan,
					"Not a configured plan; use one of " + String.join(", ", shapes.keySet()) + ".");
		}
		Expression expression;
		try {
			expression = parseKey(plan.getExpression(), KeyVariables.ofRequest());
		}
		catch (ParseException | IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.plan.expression", plan.getExpression(),
					"Not a valid plan expression: " + ex.getMessage().replace("key expression", "plan expression"));
		}
		for (Map.Entry<String, ? extends Map<String, ? extends LimitSettings.Shape>> entry : shapes.entrySet()) {
			for (Map.Entry<String, ? extends LimitSettings.Shape> limit : entry.getValue().entrySet()) {
				String property = "ratelimit.plans." + entry.getKey() + "." + limit.getKey();
				try {
					planDefinition(limit.getKey(), limit.getValue(), this.defaults.getAlgorithm(),
							this.defaults.getLimit(), this.defaults.getWindow(), 1);
				}
				catch (IllegalArgumentException ex) {
					throw invalidProperty(property, limit.getValue(), ex);
				}
			}
		}
		return new Plans(shapes, defaultPlan, expression);
	}

	/**
	 * {@code base} with its shape in every plan, when a plan names it: the plan's algorithm, limit, window and
	 * capacity, each falling back to {@code base}'s own; the default plan's shape for a plan that does not name it.
	 * @throws InvalidConfigurationPropertyValueException naming the plan's property when a shape cannot take
	 * {@code base}'s cost or fail-local share
	 */
	private ConfiguredLimit planned(ConfiguredLimit base) {
		if (!this.plans.shapes(base.name())) {
			return base;
		}
		LimitDefinition own = base.definition();
		Map<String, ConfiguredLimit> byPlan = new LinkedHashMap<>();
		for (String plan : this.plans.names()) {
			String shaping = (this.plans.shape(plan, base.name()) != null) ? plan : this.plans.defaultPlan();
			LimitSettings.Shape shape = this.plans.shape(shaping, base.name());
			if (shape == null) {
				byPlan.put(plan, base.inPlan(plan, own, base.localShare()));
				continue;
			}
			String property = "ratelimit.plans." + shaping + "." + base.name();
			try {
				LimitDefinition definition = planDefinition(base.name(), shape, own.algorithm(), own.limit(),
						own.window(), own.cost())
					.withShadow(own.shadow());
				byPlan.put(plan, base.inPlan(plan, definition, localShare(definition, base.failurePolicy())));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(property, shape,
						ex.getMessage() + " (the cost and failure policy are those of " + base.source() + ")");
			}
		}
		return base.withPlans(byPlan);
	}

	private LimitDefinition planDefinition(String name, LimitSettings.Shape shape, Algorithm algorithm,
			long limit, Duration window, long cost) {
		return definition(name, (shape.getAlgorithm() != null) ? shape.getAlgorithm() : algorithm,
				(shape.getLimit() != null) ? shape.getLimit() : limit,
				(shape.getWindow() != null) ? shape.getWindow() : window, shape.getCapacity(), cost);
	}

	private LimitDefinition definition(String name, Algorithm algorithm, long limit, Duration window, Long capacity,
			long cost) {
		if (capacity != null && algorithm != Algorithm.TOKEN_BUCKET) {
			throw new InvalidLimitException("capacity", "capacity of rate limit '" + name + "' applies to the token bucket only, not to " + algorithm);
		}
		Long defaultCapacity = (algorithm == Algorithm.TOKEN_BUCKET) ? this.defaults.getCapacity() : null;
		long effectiveCapacity = (capacity != null) ? capacity : (defaultCapacity != null) ? defaultCapacity : limit;
		return new LimitDefinition(name, algorithm, limit, window, effectiveCapacity, cost).requireCostFits();
	}

	/**
	 * The limit one instance applies alone while Redis fails: limit and capacity divided by
	 * {@code ratelimit.fail-local.instances}, rounded down; {@code null} unless the policy is fail-local.
	 * @throws IllegalArgumentException when that share could never admit a request of the limit's cost
	 */
	private LimitDefinition localShare(LimitDefinition definition, FailurePolicy failurePolicy) {
		if (failurePolicy != FailurePolicy.FAIL_LOCAL || this.failLocalInstances == null) {
			return null;
		}
		long limit = definition.limit() / this.failLocalInstances;
		long capacity = (definition.algorithm() == Algorithm.TOKEN_BUCKET)
				? definition.capacity() / this.failLocalInstances : limit;
		long bound = (definition.algorithm() == Algorithm.TOKEN_BUCKET) ? capacity : limit;
		String share = "failure policy fail-local of rate limit '" + definition.name()
				+ "' with ratelimit.fail-local.instances=" + this.failLocalInstances + " leaves each instance ";
		if (limit < 1) {
			throw new IllegalArgumentException(share + "a limit of " + definition.limit() + " / "
					+ this.failLocalInstances + " = 0 per " + definition.window()
					+ " (rounded down), which admits nothing; raise the limit, or use fewer instances or another failure policy");
		}
		if (bound < definition.cost()) {
			throw new IllegalArgumentException(share
					+ ((definition.algorithm() == Algorithm.TOKEN_BUCKET) ? "a capacity of " : "a limit of ") + bound
					+ ", which could never admit a request of cost " + definition.cost()
					+ "; raise the limit, or use fewer instances or another failure policy");
		}
		return new LimitDefinition(definition.name(), definition.algorithm(), limit, definition.window(), capacity,
				definition.cost()).withShadow(definition.shadow());
	}

	/**
	 * @throws ParseException when {@code key} is not SpEL
	 * @throws IllegalArgumentException when it refers to a bean ({@code @name}) or a variable ({@code #name}) that
	 * does not exist: such an expression would fail, or yield null, on every request
	 */
	private Expression parseKey(String key, KeyVariables variables) {
		if (!StringUtils.hasText(key)) {
			return null;
		}
		SpelExpression expression = this.parser.parseRaw(key);
		checkReferences(expression.getAST(), key, variables);
		return expression;
	}

	private void checkReferences(SpelNode node, String key, KeyVariables variables) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!variables.names().contains(name)) {
				throw new IllegalArgumentException("key expression '" + key + "' reads #" + name
						+ ", which is not defined; " + variables.hint());
			}
		}
		if (node instanceof BeanReference) {
			String name = node.toStringAST().replaceAll("^[@&]'?|'$", "");
			if (!this.beanFactory.containsBean(name)) {
				throw new IllegalArgumentException(
						"key expression '" + key + "' refers to bean '" + name + "', which does not exist");
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkReferences(node.getChild(i), key, variables);
		}
	}

	/** Whether the expression reads a variable other than those of every request: an argument of the method. */
	private static boolean readsArguments(SpelNode node) {
		if (node instanceof VariableReference
				&& !KeyVariables.ofRequest().names().contains(node.toStringAST().substring(1))) {
			return true;
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			if (readsArguments(node.getChild(i))) {
				return true;
			}
		}
		return false;
	}

	private String resolve(String value) {
		return this.environment.resolveRequiredPlaceholders(value);
	}

	/** A duration with its unit: a bare "60" would be 60 ms to Spring, rarely what its writer meant. */
	static Duration parseWindow(String value) {
		if (value.trim().matches("-?\\d+")) {
			throw new IllegalArgumentException("window '" + value + "' has no unit; write it as 60s, 500ms, 1m or PT1M");
		}
		return DurationStyle.detectAndParse(value);
	}

	/** The annotation's charge-by-outcome condition, or {@code null} when the call is charged before it runs. */
	private ChargeCondition charge(RateLimited annotation, KeyVariables variables) {
		if (annotation.chargeOn().length == 0 && !StringUtils.hasText(annotation.chargeWhen())
				&& annotation.chargeOnStatus().length == 0) {
			return null;
		}
		Set<String> names = new HashSet<>(variables.names());
		names.add("result");
		names.add("exception");
		Expression expression;
		try {
			expression = parseKey(annotation.chargeWhen(), new KeyVariables(names, "known are #result, #exception, and "
					+ variables.hint().replaceFirst("^known are ", "")));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(ex.getMessage().replace("key expression", "chargeWhen expression"), ex);
		}
		Set<Integer> statuses = new HashSet<>();
		for (int status : annotation.chargeOnStatus()) {
			if (status < 100 || status > 599) {
				throw new IllegalArgumentException("chargeOnStatus " + status + " is not an HTTP status (100 to 599)");
			}
			statuses.add(status);
		}
		return new ChargeCondition(List.of(annotation.chargeOn()), expression, statuses);
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

	static Algorithm parseAlgorithm(String value) {
		try {
			return Algorithm.valueOf(value.trim().replace('-', '_').toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("unknown algorithm '" + value
					+ "'; use fixed-window, sliding-log, sliding-window-counter or token-bucket");
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
			throw new IllegalArgumentException("unknown failure policy '" + value + "'; use fail-open, fail-closed or fail-local");
		}
	}

	/**
	 * The messages of {@link LimitDefinition} start with the field they reject ("cost of rate limit ..."), which names the
	 * property below {@code prefix}.
	 */
	private static InvalidConfigurationPropertyValueException invalidProperty(String prefix, Object owner,
			IllegalArgumentException ex) {
		String message = ex.getMessage();
		BeanWrapper properties = new BeanWrapperImpl(owner);
		String field = (ex instanceof InvalidLimitException invalid) ? invalid.getField() : null;
		if (field == null || !properties.isReadableProperty(field)) {
			return new InvalidConfigurationPropertyValueException(prefix, owner, message);
		}
		return new InvalidConfigurationPropertyValueException(prefix + "." + field, properties.getPropertyValue(field),
				message);
	}

}
