package dev.ratelimit.spring.limits;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.util.StringUtils;

/**
 * What only a filter rule has, beside the limit it shares with a route's ({@link LimitResolver}): its key expression,
 * its charge by status, its settled cost and its wait, each checked with a message naming the rule's property.
 */
final class RuleValues {

	private RuleValues() {
	}

	static @Nullable ChargeCondition charge(LimitSettings.Rule rule, String property) {
		if (rule.getChargeOnStatus().isEmpty()) {
			if (rule.isReserve()) {
				throw new InvalidConfigurationPropertyValueException(property + ".reserve", true,
						"reserve applies to a rule with charge-on-status: it reserves the cost and gives it back when"
								+ " the response status does not charge");
			}
			return null;
		}
		try {
			return ChargeCondition.onStatus(rule.getChargeOnStatus());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".charge-on-status",
					rule.getChargeOnStatus(), ex.getMessage());
		}
	}

	/**
	 * How long a request the rule denies waits for a permit (a rate limit) or a lease (a concurrency limit): {@code null}
	 * when the rule sets none, and then the request is answered 429 at once.
	 */
	static @Nullable Duration maxWait(LimitSettings.Rule rule, String property) {
		Duration maxWait = rule.getMaxWait();
		if (maxWait == null) {
			return null;
		}
		if (maxWait.isNegative()) {
			throw new InvalidConfigurationPropertyValueException(property + ".max-wait", maxWait,
					"A wait cannot be negative; use 0 for no wait.");
		}
		if (!rule.getChargeOnStatus().isEmpty() || StringUtils.hasText(rule.getSettleCostHeader())) {
			throw new InvalidConfigurationPropertyValueException(property + ".max-wait", maxWait,
					"max-wait applies to rules charged on arrival: a rule with charge-on-status or settle-cost-header"
							+ " admits a request on a read and charges it once it is answered, and never waits.");
		}
		return maxWait;
	}

	static @Nullable String settleCostHeader(LimitSettings.Rule rule, String property) {
		String header = rule.getSettleCostHeader();
		if (!StringUtils.hasText(header)) {
			return null;
		}
		if (!rule.getChargeOnStatus().isEmpty()) {
			throw new InvalidConfigurationPropertyValueException(property + ".settle-cost-header", header,
					"settle-cost-header settles what every request really cost; it does not combine with"
							+ " charge-on-status, which decides whether a request counts at all");
		}
		if (!header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
			throw new InvalidConfigurationPropertyValueException(property + ".settle-cost-header", header,
					"Not an HTTP header name.");
		}
		return header;
	}

	static @Nullable Expression key(LimitExpressionParser expressions, LimitSettings.Rule rule, String property) {
		try {
			return expressions.parse(rule.getKey(),
					(rule.getChargeOnStatus().isEmpty() && !StringUtils.hasText(rule.getSettleCostHeader()))
							? KeyVariables.ofRequest() : KeyVariables.ofRequestBeforeSecurity());
		}
		catch (ParseException | IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".key", rule.getKey(),
					"Not a valid key expression: " + ex.getMessage());
		}
	}

}
