package dev.ratelimit.spring.limits;

import java.time.Duration;
import java.util.function.Function;

import dev.ratelimit.core.InvalidLimitException;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.expression.Expression;
import org.springframework.util.StringUtils;

/**
 * Filter rules and gateway routes made limits: their values, unset ones from the defaults, with the overrides of
 * their name, shaped by plan and client; an invalid value named by its property (a rule's) or its source (a
 * route's).
 */
final class RuleLimits {

	private final LimitParts parts;

	RuleLimits(LimitParts parts) {
		this.parts = parts;
	}

	/**
	 * @throws InvalidConfigurationPropertyValueException naming the rule's property when a value is invalid
	 */
	ConfiguredLimit fromRule(LimitSettings.Rule rule, String property) {
		if (rule.getPaths().isEmpty()) {
			throw new InvalidConfigurationPropertyValueException(property + ".paths", rule.getPaths(),
					"A filter rule needs at least one path pattern, such as '/api/**'.");
		}
		// The default name is the first path, with its variables as '*': braces would break the key's hash tag.
		String name = StringUtils.hasText(rule.getName()) ? rule.getName()
				: rule.getPaths().get(0).replaceAll("\\{[^}]*}", "*");
		Expression key = RuleValues.key(this.parts.expressions(), rule, property);
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
			throw LimitResolver.invalidProperty(property, rule, ex);
		}
	}

	/**
	 * @throws IllegalArgumentException naming {@code source} and the value when a value is invalid
	 */
	ConfiguredLimit fromRoute(LimitSettings.Limit route, String defaultName, String source,
			@Nullable Expression key) {
		String name = StringUtils.hasText(route.getName()) ? route.getName() : defaultName;
		try {
			return limit(route, name, key, new ConfiguredLimit.Origin(source, StringUtils.hasText(route.getName())),
					(failurePolicy) -> new ConfiguredLimit.Handling(failurePolicy, null, null));
		}
		catch (IllegalArgumentException ex) {
			String field = (ex instanceof InvalidLimitException invalid) ? invalid.getField()
					: (ex instanceof LocalShareException) ? "failure-policy" : null;
			throw new IllegalArgumentException("Invalid rate limit of " + source + ((field != null)
					? " (" + DataObjectPropertyName.toDashedForm(field) + ")" : "") + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * A rule's or a route's limit: its shape, cost, mode and failure policy, each falling back to the defaults, with
	 * the overrides of its name, its plans and its clients.
	 * @throws IllegalArgumentException when a value is invalid ({@link InvalidLimitException} naming the field), or
	 * {@link LocalShareException}
	 */
	private ConfiguredLimit limit(LimitSettings.Limit limit, String name, @Nullable Expression key,
			ConfiguredLimit.Origin origin, Function<FailurePolicy, ConfiguredLimit.Handling> handling) {
		LimitSettings.Defaults defaults = this.parts.definitions().defaults();
		LimitOverrides overrides = this.parts.overrides();
		LimitMode mode = overrides.applyTo(name, (limit.getMode() != null) ? limit.getMode() : defaults.getMode());
		LimitShape shape = overrides.applyTo(name, this.parts.definitions().overDefaults(limit));
		LimitRequest request = this.parts.request(name, shape, this.parts.definitions().cost(shape, limit.getCost()),
				mode, limit.getUsage());
		FailurePolicy failurePolicy = overrides.applyTo(name,
				(limit.getFailurePolicy() != null) ? limit.getFailurePolicy() : defaults.getFailurePolicy());
		LimitRequest localShare;
		try {
			localShare = this.parts.shares().of(request, failurePolicy);
		}
		catch (IllegalArgumentException ex) {
			throw new LocalShareException(failurePolicy, ex);
		}
		return this.parts.shaping().shape(LimitDefinitions.requireChargedBeforeTheCall(new ConfiguredLimit(
				new ConfiguredLimit.Budget(request, localShare, null), new ConfiguredLimit.ClientKey(key, false),
				origin, handling.apply(failurePolicy), ConfiguredLimit.Planning.NONE)), shape);
	}

	/** A failure policy whose local share of the limit cannot take the cost. */
	private static final class LocalShareException extends IllegalArgumentException {

		private final transient FailurePolicy failurePolicy;

		LocalShareException(FailurePolicy failurePolicy, IllegalArgumentException cause) {
			super(cause.getMessage(), cause);
			this.failurePolicy = failurePolicy;
		}

	}

}
