package dev.ratelimit.spring.gateway;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.security.Principal;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.limits.KeyVariables;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.util.StringUtils;

/**
 * The client keys of route limits. A gateway takes route definitions at runtime (its Actuator endpoint, route
 * repositories in Redis), so a key expression may come from whoever can post a route: it is evaluated in a
 * {@link SimpleEvaluationContext}, where it can read {@code #request} (a {@link RouteKeyRequest}: header fields,
 * query parameters, cookies, path, host, method, client address), {@code #principal} (its {@code name}) and
 * {@code #key} (what the route's {@code KeyResolver} resolved) and call methods on them, and call the key helpers
 * ({@code #header('X-Api-Key')}, {@code #queryParam(name)}, {@code #clientIp()}, {@code #principalName()}, as in the
 * starter's filter rules), but not name a type
 * ({@code T(java.lang.Runtime)}), create an object, reach a bean or assign anything; an expression that tries is
 * refused when the route is built. (Filter rules of {@code ratelimit.filter.rules} come from the application's own
 * configuration, and keep the full context.)
 */
public final class RouteKeys {

	/** The key of a route whose {@code KeyResolver} resolves it. */
	public static final Expression RESOLVED = new SpelExpressionParser().parseExpression("#key");

	private static final Set<String> VARIABLES = Set.of("request", "principal", "key");

	/** The key helpers of {@link KeyVariables#HELPERS}, as methods of {@link Helpers}. */
	private static final Map<String, MethodHandle> HELPERS = KeyVariables.helpers(Helpers.class, MethodHandles.lookup());

	private RouteKeys() {
	}

	/**
	 * @return the parsed key, or {@code null} when {@code key} is empty (the client's address)
	 * @throws IllegalArgumentException when {@code key} is not SpEL, or names a type, a constructor, a bean, a
	 * function other than the key helpers, an assignment or a variable other than {@code #request},
	 * {@code #principal} and {@code #key}
	 */
	public static @Nullable Expression parse(@Nullable String key) {
		if (!StringUtils.hasText(key)) {
			return null;
		}
		SpelExpression expression;
		try {
			expression = new SpelExpressionParser().parseRaw(key);
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException("Not a valid key expression '" + key + "': " + ex.getMessage(), ex);
		}
		check(expression.getAST(), key);
		return expression;
	}

	private static void check(SpelNode node, String key) {
		if (node instanceof FunctionReference) {
			checkHelper(node, key);
		}
		else if (node instanceof TypeReference || node instanceof ConstructorReference || node instanceof BeanReference
				|| node instanceof Assign) {
			throw new IllegalArgumentException("Key expression '" + key + "' may only read the request (#request,"
					+ " #principal, #key): a route's key cannot name a type, create an object, reach a bean or assign,"
					+ " since route definitions can arrive over HTTP; use a KeyResolver bean for more");
		}
		if (node instanceof VariableReference && !VARIABLES.contains(node.toStringAST().substring(1))) {
			throw new IllegalArgumentException("Key expression '" + key + "' reads " + node.toStringAST()
					+ "; a route's key can read #request, #principal and #key");
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			check(node.getChild(i), key);
		}
	}

	/** A function call must be a key helper's, with its arguments. */
	private static void checkHelper(SpelNode node, String key) {
		String call = node.toStringAST();
		String name = call.substring(1, call.indexOf('('));
		Integer arguments = KeyVariables.HELPERS.get(name);
		if (arguments == null || node.getChildCount() != arguments) {
			throw new IllegalArgumentException("Key expression '" + key + "' calls " + call + "; a route's key can"
					+ " call the key helpers #header('name'), #queryParam('name'), #clientIp() and #principalName()");
		}
	}

	/**
	 * The context in which route keys are evaluated: read-only, methods of the given objects only, and the key
	 * helpers, which read the request as they do on the starter's filter rules.
	 * @param principal the request's principal, or {@code null}; only its name is given
	 * @param resolved what the route's {@code KeyResolver} resolved, or {@code null}
	 */
	public static EvaluationContext context(RouteKeyRequest request, @Nullable Principal principal,
			@Nullable String resolved) {
		SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();
		context.setVariable("request", request);
		context.setVariable("principal", (principal != null) ? new Name(principal.getName()) : null);
		context.setVariable("key", resolved);
		Helpers helpers = new Helpers(request, principal);
		HELPERS.forEach((name, helper) -> context.setVariable(name, helper.bindTo(helpers)));
		return context;
	}

	/** What the key helpers read of a route's request. */
	private static final class Helpers {

		private final RouteKeyRequest request;

		private final @Nullable Principal principal;

		Helpers(RouteKeyRequest request, @Nullable Principal principal) {
			this.request = request;
			this.principal = principal;
		}

		@Nullable String header(String name) {
			return this.request.getHeader(name);
		}

		@Nullable String queryParam(String name) {
			return this.request.getParameter(name);
		}

		@Nullable String clientIp() {
			String address = this.request.getRemoteAddr();
			return (address != null) ? ClientKeyResolver.canonicalIp(address) : null;
		}

		@Nullable String principalName() {
			return (this.principal != null) ? this.principal.getName() : null;
		}

	}

	/** A principal as a route key sees it: its name, and nothing that could reach further. */
	public static final class Name {

		private final String name;

		Name(String name) {
			this.name = name;
		}

		public String getName() {
			return this.name;
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

}
