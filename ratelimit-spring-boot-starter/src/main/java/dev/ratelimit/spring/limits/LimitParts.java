package dev.ratelimit.spring.limits;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.spring.LimitMode;
import org.jspecify.annotations.Nullable;

/**
 * What a limit of an annotation ({@code AnnotationLimits}) and of a rule or a route ({@code RuleLimits}) is made
 * with, one set for both, so that a part added reaches both sources.
 *
 * @param definitions the defaults, and the one check of a shape
 * @param overrides the overrides in force, applied by the limit's name
 * @param shaping the limit's shapes per plan and per client
 * @param expressions key and charge expressions, checked at startup
 * @param shares the fail-local share of a limit
 * @param usageMaxClients {@code ratelimit.usage.max-clients}
 */
record LimitParts(LimitDefinitions definitions, LimitOverrides overrides, LimitShaping shaping,
		LimitExpressionParser expressions, FailLocalShareCalculator shares, int usageMaxClients) {

	/**
	 * The request of the limit {@code name}: its shape and cost, in shadow mode or not, recording usage as
	 * {@code usage} says (a source's {@code usage}; {@code null}: none).
	 * @throws IllegalArgumentException naming the field when a value is invalid
	 */
	LimitRequest request(String name, LimitShape shape, long cost, LimitMode mode, @Nullable String usage) {
		return LimitUsage.apply(this.definitions.definition(name, shape, cost).withShadow(mode == LimitMode.SHADOW),
				usage, this.usageMaxClients);
	}

}
