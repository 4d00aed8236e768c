package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.LimitDefinition;

import org.springframework.expression.Expression;

/**
 * A limit as configured by an annotation or a filter rule, checked at startup.
 *
 * @param definition the limit with every default applied
 * @param key the parsed client key expression, or {@code null} for the client's IP address
 * @param failurePolicy what to do when Redis fails
 * @param source where it was configured, for messages: {@code "@RateLimited on Foo.bar(String)"} or
 * {@code "ratelimit.filter.rules[0]"}
 * @param explicitName whether the name was given rather than derived from the source
 */
record ConfiguredLimit(LimitDefinition definition, Expression key, FailurePolicy failurePolicy, String source,
		boolean explicitName) {

	String name() {
		return this.definition.name();
	}

}
