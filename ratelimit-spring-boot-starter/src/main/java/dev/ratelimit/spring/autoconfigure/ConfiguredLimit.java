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
 * @param readsArguments whether the key reads the annotated method's arguments ({@code #username}, {@code #p0}), so
 * it can be decided only when the method is called, not when the request arrives
 * @param localShare for {@link FailurePolicy#FAIL_LOCAL}, the limit this instance applies alone while Redis fails
 * ({@code ratelimit.fail-local.instances}); {@code null} for the other policies
 */
public record ConfiguredLimit(LimitDefinition definition, Expression key, FailurePolicy failurePolicy, String source,
		boolean explicitName, boolean readsArguments, LimitDefinition localShare) {

	public String name() {
		return this.definition.name();
	}

}
