package dev.ratelimit.spring.limits;

import java.time.Duration;

import dev.ratelimit.core.InvalidLimitException;
import dev.ratelimit.core.UsageRecording;
import dev.ratelimit.spring.RateLimited;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;

/**
 * Turns {@link RateLimited} annotations, filter rules and gateway routes into {@link ConfiguredLimit}s, filling unset
 * attributes from {@code ratelimit.defaults}, applying the overrides, and shaping them by plan ({@code ratelimit.plans})
 * and client; rejects invalid values with a message naming the property or the method: the one place where limits
 * are validated. Annotations are resolved by {@code AnnotationLimits}, rules and routes by {@code RuleLimits}, their
 * shapes per plan and client by {@code LimitShaping}, each on the defaults of {@code LimitDefinitions}.
 */
public final class LimitResolver {

	/**
	 * The lease time of a concurrency limit that sets no window: how long a lease outlives a holder that stopped
	 * renewing it (an instance killed mid-call).
	 */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	private final PlanSelector plans;

	private final LimitOverrides overrides;

	private final AnnotationLimits annotations;

	private final RuleLimits rules;

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
		FailLocalShareCalculator shares = new FailLocalShareCalculator(failLocalInstances);
		LimitExpressionParser expressions = new LimitExpressionParser(beanFactory, stack);
		LimitDefinitions definitions = new LimitDefinitions(properties.getDefaults());
		this.plans = new PlanResolver(expressions, LimitShape.of(properties.getDefaults()), definitions)
			.plans(properties.getPlan(), overrides.applyTo(properties.getPlans()));
		LimitShaping shaping = new LimitShaping(this.plans, overrides, definitions, shares);
		LimitParts parts = new LimitParts(definitions, overrides, shaping, expressions, shares,
				maxClients(properties.getUsage()));
		this.annotations = new AnnotationLimits(parts, environment);
		this.rules = new RuleLimits(parts);
	}

	private static int maxClients(LimitSettings.Usage usage) {
		int maxClients = usage.getMaxClients();
		if (maxClients < 1 || maxClients > UsageRecording.MAX_CLIENTS_BOUND) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.usage.max-clients", maxClients,
					"The most clients whose usage a limit records per period: 1 to " + UsageRecording.MAX_CLIENTS_BOUND
							+ ".");
		}
		return maxClients;
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
	 * @throws IllegalStateException naming {@code source} when a value is invalid, or the client whose override makes
	 * it invalid
	 */
	public ConfiguredLimit fromAnnotation(RateLimited annotation, String defaultName, String source,
			KeyVariables variables) {
		return this.annotations.resolve(annotation, defaultName, source, variables);
	}

	/**
	 * @throws InvalidConfigurationPropertyValueException naming the rule's property when a value is invalid
	 * @throws IllegalStateException naming the client whose override makes the limit invalid
	 */
	public ConfiguredLimit fromRule(LimitSettings.Rule rule, String property) {
		return this.rules.fromRule(rule, property);
	}

	/**
	 * A limit of a Spring Cloud Gateway route ({@code ratelimit-spring-cloud-gateway}'s route filters): a rule's
	 * values without paths, charged on arrival.
	 * @param defaultName the name when {@code route} sets none: the route's id
	 * @param source what messages, the endpoint and the meters' logs name it by, such as {@code route 'api'}
	 * @param key the client key's expression, already checked by the caller; {@code null}: the client's address
	 * @throws IllegalArgumentException naming {@code source} and the value when a value is invalid
	 * @throws IllegalStateException naming the client whose override makes the limit invalid
	 */
	public ConfiguredLimit fromRoute(LimitSettings.Limit route, String defaultName, String source,
			@Nullable Expression key) {
		return this.rules.fromRoute(route, defaultName, source, key);
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
