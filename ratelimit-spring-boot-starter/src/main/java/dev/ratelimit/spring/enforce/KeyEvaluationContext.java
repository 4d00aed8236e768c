package dev.ratelimit.spring.enforce;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.spring.limits.KeyVariables;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * The context of a limit's expressions for one request or call: its variables, and the key helpers
 * ({@link KeyVariables#HELPERS}) as SpEL functions bound to the request. A helper is bound only when an expression
 * calls it, so expressions that call none pay nothing for them. A method's parameter named like a helper hides the
 * helper: {@code #clientIp} stays the argument (the parser refuses an expression that calls a hidden helper).
 */
final class KeyEvaluationContext extends StandardEvaluationContext {

	/** Each helper's method of {@link KeyHelpers}, found by the helper's name. */
	private static final Map<String, MethodHandle> HELPERS = KeyVariables.helpers(KeyHelpers.class,
			MethodHandles.lookup());

	private final KeyHelpers request;

	private final Set<String> parameters;

	/**
	 * @param parameters the names of the method's parameters set as variables, which helpers never hide
	 */
	KeyEvaluationContext(KeyHelpers request, Set<String> parameters) {
		this.request = request;
		this.parameters = parameters;
	}

	@Override
	public @Nullable Object lookupVariable(String name) {
		Object value = super.lookupVariable(name);
		if (value != null || this.parameters.contains(name)) {
			return value;
		}
		MethodHandle helper = HELPERS.get(name);
		return (helper != null) ? helper.bindTo(this.request) : null;
	}

}
