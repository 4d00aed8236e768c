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

	private final LimitParts parts;

	private final Environment environment;

	AnnotationLimits(LimitParts parts, Environment environment) {
		this.parts = parts;
		this.environment = environment;
	}

	/**
	 * @throws IllegalStateException naming {@code source} when a value is invalid
	 */
	ConfiguredLimit resolve(RateLimited annotation, String defaultName, String source, KeyVariables variables) {
		LimitDefinitions definitions = this.parts.definitions();
		LimitOverrides overrides = this.parts.overrides();
		LimitExpressionParser expressions = this.parts.expressions();
		LimitSettings.Defaults defaults = definitions.defaults();
		try {
			String name = StringUtils.hasText(annotation.name()) ? resolve(annotation.name()) : defaultName;
			LimitShape shape = overrides.applyTo(name,
					definitions.overDefaults(AnnotationValueParser.shape(annotation, this::resolve)));
			long cost = definitions.cost(shape, (annotation.cost() != RateLimited.UNSET) ? annotation.cost() : null);
			FailurePolicy failurePolicy = overrides.applyTo(name, StringUtils.hasText(annotation.failurePolicy())
					? parseFailurePolicy(resolve(annotation.failurePolicy())) : defaults.getFailurePolicy());
			LimitMode mode = overrides.applyTo(name, StringUtils.hasText(annotation.mode())
					? parseMode(resolve(annotation.mode())) : defaults.getMode());
			LimitRequest request = this.parts.request(name, shape, cost, mode,
					StringUtils.hasText(annotation.usage()) ? resolve(annotation.usage()) : null);
			Expression key = expressions.parse(annotation.key(), variables);
			Duration maxWait = StringUtils.hasText(annotation.maxWait()) ? parseMaxWait(resolve(annotation.maxWait()))
					: null;
			ChargeCondition charge = expressions.charge(annotation, variables);
			if (annotation.reserve() && charge == null) {
				throw new IllegalArgumentException("reserve applies to a limit charged by outcome (chargeOn,"
						+ " chargeWhen, chargeOnStatus): it reserves the cost and gives it back when the outcome does"
						+ " not charge");
			}
			return this.parts.shaping().shape(LimitDefinitions.requireChargedBeforeTheCall(new ConfiguredLimit(
					new ConfiguredLimit.Budget(request, this.parts.shares().of(request, failurePolicy), null),
					new ConfiguredLimit.ClientKey(key, LimitExpressionParser.readsArguments(key)),
					new ConfiguredLimit.Origin(source, StringUtils.hasText(annotation.name())),
					new ConfiguredLimit.Handling(failurePolicy, maxWait, charge, annotation.reserve(),
							expressions.settleCost(annotation, variables), null),
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
