package dev.ratelimit.spring.limits;

import java.time.Duration;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.RateLimited;

import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.util.StringUtils;

import static dev.ratelimit.spring.limits.AnnotationValueParser.parseFailurePolicy;
import static dev.ratelimit.spring.limits.AnnotationValueParser.parseMaxWait;
import static dev.ratelimit.spring.limits.AnnotationValueParser.parseMode;

/**
 * {@link RateLimited} annotations made limits: their attributes with placeholders resolved, unset ones from the
 * defaults, with the overrides of their name, shaped by plan and client.
 */
final class AnnotationLimits {

	private final LimitDefinitions definitions;

	private final LimitOverrides overrides;

	private final LimitShaping shaping;

	private final LimitExpressionParser expressions;

	private final FailLocalShareCalculator shares;

	private final Environment environment;

	/** {@code ratelimit.usage.max-clients}. */
	private final int usageMaxClients;

	AnnotationLimits(LimitDefinitions definitions, LimitOverrides overrides, LimitShaping shaping,
			LimitExpressionParser expressions, FailLocalShareCalculator shares, Environment environment,
			int usageMaxClients) {
		this.usageMaxClients = usageMaxClients;
		this.definitions = definitions;
		this.overrides = overrides;
		this.shaping = shaping;
		this.expressions = expressions;
		this.shares = shares;
		this.environment = environment;
	}

	/**
	 * @throws IllegalStateException naming {@code source} when a value is invalid
	 */
	ConfiguredLimit resolve(RateLimited annotation, String defaultName, String source, KeyVariables variables) {
		LimitSettings.Defaults defaults = this.definitions.defaults();
		try {
			String name = StringUtils.hasText(annotation.name()) ? resolve(annotation.name()) : defaultName;
			LimitShape shape = this.overrides.applyTo(name,
					this.definitions.overDefaults(AnnotationValueParser.shape(annotation, this::resolve)));
			long cost = this.definitions.cost(shape, (annotation.cost() != RateLimited.UNSET) ? annotation.cost() : null);
			FailurePolicy failurePolicy = this.overrides.applyTo(name, StringUtils.hasText(annotation.failurePolicy())
					? parseFailurePolicy(resolve(annotation.failurePolicy())) : defaults.getFailurePolicy());
			LimitMode mode = this.overrides.applyTo(name, StringUtils.hasText(annotation.mode())
					? parseMode(resolve(annotation.mode())) : defaults.getMode());
			LimitRequest request = LimitUsage.apply(
					this.definitions.definition(name, shape, cost).withShadow(mode == LimitMode.SHADOW),
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
			return this.shaping.shape(LimitDefinitions.requireChargedBeforeTheCall(new ConfiguredLimit(
					new ConfiguredLimit.Budget(request, this.shares.of(request, failurePolicy), null),
					new ConfiguredLimit.ClientKey(key, LimitExpressionParser.readsArguments(key)),
					new ConfiguredLimit.Origin(source, StringUtils.hasText(annotation.name())),
					new ConfiguredLimit.Handling(failurePolicy, maxWait, charge, annotation.reserve(),
							this.expressions.settleCost(annotation, variables), null),
					ConfiguredLimit.Planning.NONE)), shape);
		}
		catch (IllegalArgumentException | ParseException ex) {
			throw new IllegalStateException("Invalid " + source + ": " + ex.getMessage(), ex);
		}
	}

	private String resolve(String value) {
		return this.environment.resolveRequiredPlaceholders(value);
	}

}
