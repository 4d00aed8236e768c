package dev.ratelimit.spring.limits;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InvalidLimitException;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.UsageRecording;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.RateLimited;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.util.StringUtils;

import static dev.ratelimit.spring.limits.AnnotationValueParser.parseFailurePolicy;
import static dev.ratelimit.spring.limits.AnnotationValueParser.parseMaxWait;
import static dev.ratelimit.spring.limits.AnnotationValueParser.parseMode;

/**
 * Turns {@link RateLimited} annotations and filter rules into {@link ConfiguredLimit}s, filling unset attributes from
 * {@code ratelimit.defaults} and shaping them by plan ({@code ratelimit.plans}), and rejects invalid values with a
 * message naming the property or the method: the one place where limits are validated.
 */
public final class LimitResolver {

	/**
	 * The lease time of a concurrency limit that sets no window: how long a lease outlives a holder that stopped
	 * renewing it (an instance killed mid-call).
	 */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	private final LimitSettings.Defaults defaults;

	private final Environment environment;

	private final LimitExpressionParser expressions;

	private final FailLocalShareCalculator shares;

	private final PlanSelector plans;

	private final LimitOverrides overrides;

	/** {@code ratelimit.usage.max-clients}. */
	private final int usageMaxClients;

	/**
	 * @param properties {@code ratelimit.*}
	 * @param failLocalInstances {@code ratelimit.fail-local.instances}: fail-local limits apply their limit divided by
	 * it; {@code null} with the in-memory store, which never fails, so that no limit has a local share
	 * @param environment resolves placeholders in annotation attributes
	 * @param beanFactory for the bean references of expressions
	 * @throws InvalidConfigurationPropertyValueException naming the property when the defaults or plans are invalid
	 */
	public LimitResolver(LimitSettings properties, @Nullable Integer failLocalInstances, Environment environment,
			BeanFactory beanFactory) {
		this(properties, LimitOverrides.NONE, failLocalInstances, environment, beanFactory, null);
	}

	/**
	 * A resolver whose limits have the shapes, modes and failure policies that {@code overrides} change.
	 * @param stack the web stack whose {@code #request} key expressions are checked against, or null
	 * @throws InvalidConfigurationPropertyValueException naming the property when the defaults or plans are invalid
	 */
	public LimitResolver(LimitSettings properties, LimitOverrides overrides, @Nullable Integer failLocalInstances,
			Environment environment, BeanFactory beanFactory, @Nullable RequestStack stack) {
		this.overrides = overrides;
		this.defaults = properties.getDefaults();
		this.shares = new FailLocalShareCalculator(failLocalInstances);
		this.environment = environment;
		this.expressions = new LimitExpressionParser(beanFactory, stack);
		checkDefaults();
		this.usageMaxClients = maxClients(properties.getUsage());
		this.plans = new PlanResolver(this.expressions, LimitShape.of(this.defaults), this::definition)
			.plans(properties.getPlan(), this.overrides.applyTo(properties.getPlans()));
	}

	/** The overrides that this resolver applies. */
	public LimitOverrides overrides() {
		return this.overrides;
	}

	/** The plans, checked. */
	public PlanSelector plans() {
		return this.plans;
	}

	/**
	 * @throws IllegalStateException naming {@code source} when a value is invalid
	 */
	public ConfiguredLimit fromAnnotation(RateLimited annotation, String defaultName, String source, KeyVariables variables) {
		try {
			String name = StringUtils.hasText(annotation.name()) ? resolve(annotation.name()) : defaultName;
			LimitShape shape = this.overrides.applyTo(name, shape(annotation));
			long cost = (annotation.cost() != RateLimited.UNSET) ? annotation.cost()
					: concurrencyCost(shape, this.defaults.getCost());
			FailurePolicy failurePolicy = this.overrides.applyTo(name, StringUtils.hasText(annotation.failurePolicy())
					? parseFailurePolicy(resolve(annotation.failurePolicy())) : this.defaults.getFailurePolicy());
			LimitMode mode = this.overrides.applyTo(name, StringUtils.hasText(annotation.mode()) ? parseMode(resolve(annotation.mode()))
					: this.defaults.getMode());
			LimitRequest request = LimitUsage.apply(definition(name, shape, cost).withShadow(mode == LimitMode.SHADOW),
					StringUtils.hasText(annotation.usage()) ? resolve(annotation.usage()) : null, this.usageMaxClients);
			Expression key = this.expressions.parse(annotation.key(), variables);
			Duration maxWait = StringUtils.hasText(annotation.maxWait()) ? parseMaxWait(resolve(annotation.maxWait()))
					: null;
			ChargeCondition charge = this.expressions.charge(annotation, variables);
			if (annotation.reserve() && charge == null) {
				throw new IllegalArgumentException("reserve applies to a limit charged by outcome (chargeOn,"
						+ " chargeWhen, chargeOnStatus): it reserves the cost and gives it back when the outcome does"
						+ " not charge");
			}
			return planned(requireChargedBeforeTheCall(new ConfiguredLimit(
					new ConfiguredLimit.Budget(request, this.shares.of(request, failurePolicy), null),
					new ConfiguredLimit.ClientKey(key, LimitExpressionParser.readsArguments(key)),
					new ConfiguredLimit.Origin(source, StringUtils.hasText(annotation.name())),
					new ConfiguredLimit.Handling(failurePolicy, maxWait, charge, annotation.reserve(),
							this.expressions.settleCost(annotation, variables), null),
					ConfiguredLimit.Planning.NONE)));
		}
		catch (IllegalArgumentException | ParseException ex) {
			throw new IllegalStateException("Invalid " + source + ": " + ex.getMessage(), ex);
		}
	}

	private LimitShape shape(RateLimited annotation) {
		return overDefaults(AnnotationValueParser.shape(annotation, this::resolve));
	}

	/** What {@code set} sets over the defaults, with {@link #defaultWindow} where it sets neither window nor period. */
	private LimitShape overDefaults(LimitSettings.Shape set) {
		LimitShape shape = LimitShape.of(this.defaults).with(set);
		return (set.getWindow() == null && shape.calendar() == null) ? shape.withWindow(defaultWindow(shape.algorithm()))
				: shape;
	}

	/**
	 * The window of a limit that sets none: the default window, or for a concurrency limit, whose window is its
	 * lease time, {@link #DEFAULT_LEASE_TIME}.
	 */
	private Duration defaultWindow(Algorithm algorithm) {
		return algorithm.rate() ? this.defaults.getWindow() : DEFAULT_LEASE_TIME;
	}

	/** A concurrency limit's call takes one lease, whatever {@code ratelimit.defaults.cost} says. */
	private static long concurrencyCost(LimitShape shape, long defaultCost) {
		return shape.algorithm().rate() ? defaultCost : 1;
	}

	/**
	 * A concurrency limit's lease is given back when the call ends, whatever its outcome: charging by outcome, reserving
	 * and settling a cost mean nothing for it.
	 * @throws IllegalArgumentException when the limit is a concurrency limit charged by outcome
	 */
	private static ConfiguredLimit requireChargedBeforeTheCall(ConfiguredLimit limit) {
		if (limit.concurrency() && (limit.chargedByOutcome() || limit.reserved())) {
			throw new InvalidLimitException("algorithm", "concurrency limit '" + limit.name()
					+ "' holds a lease while a call runs and gives it back when the call ends, whatever its outcome; it"
					+ " cannot be charged by outcome (chargeOn, chargeWhen, chargeOnStatus, charge-on-status, reserve,"
					+ " settleCost, settle-cost-header): use a rate limit for that");
		}
		return limit;
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
		Expression key = RuleValues.key(this.expressions, rule, property);
		ChargeCondition charge = RuleValues.charge(rule, property);
		String settleCostHeader = RuleValues.settleCostHeader(rule, property);
		Duration maxWait = RuleValues.maxWait(rule, property);
		try {
			return limit(rule, name, key, new ConfiguredLimit.Origin(property, StringUtils.hasText(rule.getName())),
					(failurePolicy) -> new ConfiguredLimit.Handling(failurePolicy, maxWait, charge, rule.isReserve(), null,
							settleCostHeader));
		}
		catch (LocalShareException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".failure-policy", ex.failurePolicy,
					ex.getMessage());
		}
		catch (IllegalArgumentException ex) {
			throw invalidProperty(property, rule, ex);
		}
	}

	/**
	 * A limit of a Spring Cloud Gateway route ({@code ratelimit-spring-cloud-gateway}'s route filters): a rule's
	 * values without paths, charged on arrival.
	 * @param defaultName the name when {@code route} sets none: the route's id
	 * @param source what messages, the endpoint and the meters' logs name it by, such as {@code route 'api'}
	 * @param key the client key's expression, already checked by the caller; {@code null}: the client's address
	 * @throws IllegalArgumentException naming {@code source} and the value when a value is invalid
	 */
	public ConfiguredLimit fromRoute(LimitSettings.Limit route, String defaultName, String source,
			@Nullable Expression key) {
		String name = StringUtils.hasText(route.getName()) ? route.getName() : defaultName;
		try {
			return limit(route, name, key, new ConfiguredLimit.Origin(source, StringUtils.hasText(route.getName())),
					(failurePolicy) -> new ConfiguredLimit.Handling(failurePolicy, null, null));
		}
		catch (IllegalArgumentException ex) {
			String field = (ex instanceof InvalidLimitException invalid) ? invalid.getField()
					: (ex instanceof LocalShareException) ? "failurePolicy" : null;
			throw new IllegalArgumentException("Invalid rate limit of " + source
					+ ((field != null) ? " (" + field + ")" : "") + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * A rule's or a route's limit: its shape, cost, mode and failure policy, each falling back to the defaults, with
	 * the overrides of its name and its plans.
	 * @throws IllegalArgumentException when a value is invalid ({@link InvalidLimitException} naming the field), or
	 * {@link LocalShareException}
	 */
	private ConfiguredLimit limit(LimitSettings.Limit limit, String name, @Nullable Expression key,
			ConfiguredLimit.Origin origin, Function<FailurePolicy, ConfiguredLimit.Handling> handling) {
		LimitMode mode = this.overrides.applyTo(name, (limit.getMode() != null) ? limit.getMode() : this.defaults.getMode());
		LimitShape shape = this.overrides.applyTo(name, overDefaults(limit));
		LimitRequest request = LimitUsage.apply(definition(name, shape,
				(limit.getCost() != null) ? limit.getCost() : concurrencyCost(shape, this.defaults.getCost()))
			.withShadow(mode == LimitMode.SHADOW), limit.getUsage(), this.usageMaxClients);
		FailurePolicy failurePolicy = this.overrides.applyTo(name,
				(limit.getFailurePolicy() != null) ? limit.getFailurePolicy() : this.defaults.getFailurePolicy());
		LimitRequest localShare;
		try {
			localShare = this.shares.of(request, failurePolicy);
		}
		catch (IllegalArgumentException ex) {
			throw new LocalShareException(failurePolicy, ex);
		}
		return planned(requireChargedBeforeTheCall(new ConfiguredLimit(
				new ConfiguredLimit.Budget(request, localShare, null), new ConfiguredLimit.ClientKey(key, false),
				origin, handling.apply(failurePolicy), ConfiguredLimit.Planning.NONE)));
	}

	/** A failure policy whose local share of the limit cannot take the cost. */
	private static final class LocalShareException extends IllegalArgumentException {

		private final transient FailurePolicy failurePolicy;

		LocalShareException(FailurePolicy failurePolicy, IllegalArgumentException cause) {
			super(cause.getMessage(), cause);
			this.failurePolicy = failurePolicy;
		}

	}

	private static int maxClients(LimitSettings.Usage usage) {
		int maxClients = usage.getMaxClients();
		if (maxClients < 1 || maxClients > UsageRecording.MAX_CLIENTS_BOUND) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.usage.max-clients", maxClients,
					"The most clients whose usage a limit records per period: 1 to " + UsageRecording.MAX_CLIENTS_BOUND + ".");
		}
		return maxClients;
	}

	private void checkDefaults() {
		if (this.defaults.getMaxWait() == null || this.defaults.getMaxWait().isNegative()) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.defaults.max-wait",
					this.defaults.getMaxWait(), "A duration of at least 0 (0: a denied call never waits).");
		}
		try {
			definition("defaults", LimitShape.of(this.defaults), this.defaults.getCost());
		}
		catch (IllegalArgumentException ex) {
			throw invalidProperty("ratelimit.defaults", this.defaults, ex);
		}
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
		LimitRequest own = base.request();
		LimitShape ownShape = new LimitShape(own.definition().algorithm(), own.definition().limit(),
				own.definition().window(), null, own.definition().calendar());
		Map<String, ConfiguredLimit> byPlan = new LinkedHashMap<>();
		for (String plan : this.plans.names()) {
			String shaping = (this.plans.shape(plan, base.name()) != null) ? plan : this.plans.defaultPlan();
			LimitSettings.Shape shape = this.plans.shape(shaping, base.name());
			if (shape == null) {
				byPlan.put(plan, base.inPlan(new ConfiguredLimit.Budget(own, base.localShare(), plan)));
				continue;
			}
			try {
				LimitRequest request = LimitUsage.recording(
						definition(base.name(), ownShape.with(shape), own.cost()).withShadow(own.shadow()),
						own.definition().usage());
				byPlan.put(plan, base.inPlan(
						new ConfiguredLimit.Budget(request, this.shares.of(request, base.failurePolicy()), plan)));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException("ratelimit.plans." + shaping + "." + base.name(),
						shape, ex.getMessage() + " (the cost and failure policy are those of " + base.source() + ")");
			}
		}
		return base.withPlans(this.plans, byPlan);
	}

	/**
	 * The limit of {@code name} in {@code shape}, taking {@code cost} per request, enforced.
	 * @throws InvalidLimitException naming the field when a value is invalid or the cost can never fit
	 */
	private LimitRequest definition(String name, LimitShape shape, long cost) {
		if (shape.capacity() != null && shape.algorithm() != Algorithm.TOKEN_BUCKET) {
			throw new InvalidLimitException("capacity", "capacity of rate limit '" + name
					+ "' applies to the token bucket only, not to " + shape.algorithm());
		}
		if (shape.calendar() != null && shape.algorithm() != Algorithm.FIXED_WINDOW) {
			throw new InvalidLimitException("period", "rate limit '" + name + "' counts calendar periods ("
					+ shape.calendar() + "), which only the fixed-window algorithm takes, not " + Terms.of(shape.algorithm()));
		}
		Long defaultCapacity = (shape.algorithm() == Algorithm.TOKEN_BUCKET) ? this.defaults.getCapacity() : null;
		long capacity = (shape.capacity() != null) ? shape.capacity()
				: (defaultCapacity != null) ? defaultCapacity : shape.limit();
		return new LimitDefinition(name, shape.algorithm(), shape.limit(), shape.window(), capacity, shape.calendar())
			.request(cost)
			.requireCostFits();
	}

	private String resolve(String value) {
		return this.environment.resolveRequiredPlaceholders(value);
	}

	/**
	 * The property below {@code prefix} that the {@link InvalidLimitException} names, with its value; {@code prefix}
	 * itself for other errors.
	 */
	static InvalidConfigurationPropertyValueException invalidProperty(String prefix, Object owner,
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
