package dev.ratelimit.spring.limits;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.springframework.core.DefaultParameterNameDiscoverer;

/**
 * The variables a key expression may read, so that a misspelt {@code #usernme}, which would evaluate to null on
 * every request and silently limit by IP instead, is reported at startup.
 *
 * @param names {@code #request}, {@code #principal}, {@code #exchange} (WebFlux) and, on a method, its arguments by name and as {@code #p0} /
 * {@code #a0}
 * @param hint what to add to the message about an unknown variable
 * @param parameters the method's parameter names (empty for a rule): a parameter named {@code request} is what
 * {@code #request} reads outside an HTTP request, so its members are not checked against the stack's request type
 */
public record KeyVariables(Set<String> names, String hint, Set<String> parameters) {

	/** The variables of an expression that reads no method's parameters. */
	public KeyVariables(Set<String> names, String hint) {
		this(names, hint, Set.of());
	}

	/**
	 * The key helpers, by name, with the number of arguments each takes: functions that read the same on Spring MVC,
	 * WebFlux and the gateway ({@code #header('X-Api-Key')}, {@code #queryParam('tenant')}, {@code #clientIp()},
	 * {@code #principalName()}), each {@code null} where there is nothing to read (outside a request, no such
	 * field). {@code #header(name)} gives exactly what {@code #request.getHeader(name)} gives on Spring MVC, so a key
	 * moved from one to the other keeps every client's budget.
	 */
	public static final Map<String, Integer> HELPERS = Map.of("header", 1, "queryParam", 1, "clientIp", 0,
			"principalName", 0);

	private static final Set<String> ALWAYS = Set.of("request", "principal", "exchange", "root", "this");

	/**
	 * The key helpers as methods of {@code type}: for each helper, its method of the same name, returning a
	 * {@code String} and taking its arguments as strings, to bind to an instance and register as a SpEL function.
	 * @param lookup a lookup that can see those methods (the caller's own)
	 * @throws IllegalStateException when {@code type} lacks one
	 */
	public static Map<String, MethodHandle> helpers(Class<?> type, MethodHandles.Lookup lookup) {
		Map<String, MethodHandle> helpers = new HashMap<>();
		HELPERS.forEach((name, arguments) -> {
			MethodType signature = MethodType.methodType(String.class, Collections.<Class<?>>nCopies(arguments, String.class));
			try {
				helpers.put(name, lookup.findVirtual(type, name, signature));
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(type.getName() + " has no key helper " + name + signature, ex);
			}
		});
		return Map.copyOf(helpers);
	}

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
				+ ((parameterNames.length > 0) ? ", " : "") + "#request, #principal and, on WebFlux, #exchange",
				Set.of(parameterNames));
	}

}
