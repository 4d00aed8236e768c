package dev.ratelimit.spring.gateway;

import java.security.Principal;
import java.util.Set;

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
 * {@code #key} (what the route's {@code KeyResolver} resolved) and call methods on them, but not name a type
 * ({@code T(java.lang.Runtime)}), create an object, reach a bean or assign anything; an expression that tries is
 * refused when the route is built. (Filter rules of {@code ratelimit.filter.rules} come from the application's own
 * configuration, and keep the full context.)
 */
public final class RouteKeys {

	/** The key of a route whose {@code KeyResolver} resolves it. */
	public static final Expression RESOLVED = new SpelExpressionParser().parseExpression("#key");

	private static final Set<String> VARIABLES = Set.of("request", "principal", "key");

	private RouteKeys() {
	}

	/**
	 * @return the parsed key, or {@code null} when {@code key} is empty (the client's address)
	 * @throws IllegalArgumentException when {@code key} is not SpEL, or names a type, a constructor, a bean, a
	 * function, an assignment or a variable other than {@code #request}, {@code #principal} and {@code #key}
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
		if (node instanceof TypeReference || node instanceof ConstructorReference || node instanceof BeanReference
				|| node instanceof FunctionReference || node instanceof Assign) {
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

	/**
	 * The context in which route keys are evaluated: read-only, methods of the given objects only.
	 * @param principal the request's principal, or {@code null}; only its name is given
	 * @param resolved what the route's {@code KeyResolver} resolved, or {@code null}
	 */
	public static EvaluationContext context(RouteKeyRequest request, @Nullable Principal principal,
			@Nullable String resolved) {
		SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();
		context.setVariable("request", request);
		context.setVariable("principal", (principal != null) ? new Name(principal.getName()) : null);
		context.setVariable("key", resolved);
		return context;
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
