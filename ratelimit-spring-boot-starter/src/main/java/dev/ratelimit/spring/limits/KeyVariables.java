package dev.ratelimit.spring.limits;

import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;

import org.springframework.core.DefaultParameterNameDiscoverer;

/**
 * The variables a key expression may read, so that a misspelt {@code #usernme}, which would evaluate to null on
 * every request and silently limit by IP instead, is reported at startup.
 *
 * @param names {@code #request}, {@code #principal}, {@code #exchange} (WebFlux) and, on a method, its arguments by name and as {@code #p0} /
 * {@code #a0}
 * @param hint what to add to the message about an unknown variable
 */
public record KeyVariables(Set<String> names, String hint) {

	private static final Set<String> ALWAYS = Set.of("request", "principal", "exchange", "root", "this");

	/** The variables of a filter rule. */
	static KeyVariables ofRequest() {
		return new KeyVariables(ALWAYS, "a filter rule's key can read #request, #principal and, on WebFlux, #exchange");
	}

	/**
	 * The variables of a filter rule charged by outcome: its filter runs before Spring Security, where no principal
	 * is known yet.
	 */
	static KeyVariables ofRequestBeforeSecurity() {
		return new KeyVariables(Set.of("request", "exchange", "root", "this"), "a rule with charge-on-status or"
				+ " settle-cost-header is decided before Spring Security authenticates the request, so its key can read"
				+ " #request and, on WebFlux, #exchange, but not #principal");
	}

	/** The variables of a method's annotation. */
	public static KeyVariables of(Method method) {
		Set<String> names = new HashSet<>(ALWAYS);
		for (int i = 0; i < method.getParameterCount(); i++) {
			names.add("p" + i);
			names.add("a" + i);
		}
		String[] parameterNames = new DefaultParameterNameDiscoverer().getParameterNames(method);
		if (parameterNames == null) {
			return new KeyVariables(names, "the method's parameter names are not available (compile with -parameters),"
					+ " so arguments can only be read as #p0, #p1, ...");
		}
		names.addAll(Set.of(parameterNames));
		return new KeyVariables(names, "known are " + String.join(", ", parameterNames)
				+ ((parameterNames.length > 0) ? ", " : "") + "#request, #principal and, on WebFlux, #exchange");
	}

}
