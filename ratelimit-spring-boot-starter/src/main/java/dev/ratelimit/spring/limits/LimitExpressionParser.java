package dev.ratelimit.spring.limits;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import dev.ratelimit.spring.RateLimited;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.StringUtils;

/**
 * The SpEL expressions of limits (client keys, plan expressions, charge conditions), parsed once at startup and
 * checked there: an expression that reads a variable or a bean that does not exist would fail, or yield null, on
 * every request, so it stops startup instead.
 */
final class LimitExpressionParser {

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final BeanFactory beanFactory;

	private final @Nullable RequestStack stack;

	/**
	 * @param stack the web stack whose {@code #request} expressions call methods of, or null: not checked
	 */
	LimitExpressionParser(BeanFactory beanFactory, @Nullable RequestStack stack) {
		this.beanFactory = beanFactory;
		this.stack = stack;
	}

	/**
	 * @return the parsed expression, or {@code null} when {@code key} is empty
	 * @throws ParseException when {@code key} is not SpEL
	 * @throws IllegalArgumentException when it refers to a bean ({@code @name}) or a variable ({@code #name}) that
	 * does not exist
	 */
	@Nullable Expression parse(@Nullable String key, KeyVariables variables) {
		if (!StringUtils.hasText(key)) {
			return null;
		}
		SpelExpression expression = this.parser.parseRaw(key);
		checkReferences(expression.getAST(), key, variables);
		return expression;
	}

	/** Whether the expression reads a variable other than those of every request: an argument of the method. */
	static boolean readsArguments(@Nullable Expression expression) {
		return expression != null && readsArguments(((SpelExpression) expression).getAST());
	}

	/**
	 * The annotation's charge-by-outcome condition, or {@code null} when the call is charged before it runs.
	 * @throws IllegalArgumentException when {@code chargeWhen} is invalid or a status is not an HTTP status
	 */
	@Nullable ChargeCondition charge(RateLimited annotation, KeyVariables variables) {
		if (annotation.chargeOn().length == 0 && !StringUtils.hasText(annotation.chargeWhen())
				&& annotation.chargeOnStatus().length == 0) {
			return null;
		}
		Set<String> names = new HashSet<>(variables.names());
		names.add("result");
		names.add("exception");
		Expression expression;
		try {
			expression = parse(annotation.chargeWhen(), new KeyVariables(names, "known are #result, #exception, and "
					+ variables.hint().replaceFirst("^known are ", ""), variables.parameters()));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					String.valueOf(ex.getMessage()).replace("key expression", "chargeWhen expression"), ex);
		}
		Set<Integer> statuses = ChargeCondition.checked(IntStream.of(annotation.chargeOnStatus()).boxed().toList());
		return new ChargeCondition(List.of(annotation.chargeOn()), expression, statuses);
	}

	/**
	 * The annotation's settled cost, or {@code null} when its cost is fixed.
	 * @throws IllegalArgumentException when {@code settleCost} is invalid, or given with a charge condition
	 */
	@Nullable Expression settleCost(RateLimited annotation, KeyVariables variables) {
		if (!StringUtils.hasText(annotation.settleCost())) {
			return null;
		}
		if (annotation.chargeOn().length > 0 || StringUtils.hasText(annotation.chargeWhen())
				|| annotation.chargeOnStatus().length > 0) {
			throw new IllegalArgumentException("settleCost settles what every call really cost; it does not combine"
					+ " with chargeOn, chargeWhen or chargeOnStatus, which decide whether a call counts at all");
		}
		Set<String> names = new HashSet<>(variables.names());
		names.add("result");
		try {
			return parse(annotation.settleCost(), new KeyVariables(names,
					"known are #result, and " + variables.hint().replaceFirst("^known are ", ""), variables.parameters()));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					String.valueOf(ex.getMessage()).replace("key expression", "settleCost expression"), ex);
		}
	}

	private void checkReferences(SpelNode node, String key, KeyVariables variables) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!variables.names().contains(name)) {
				throw new IllegalArgumentException("key expression '" + key + "' reads #" + name
						+ ", which is not defined; " + (KeyVariables.HELPERS.containsKey(name)
								? "#" + name + " is a key helper, to call: " + helperForm(name) : variables.hint()));
			}
		}
		if (node instanceof FunctionReference) {
			checkHelper(node, key, variables);
		}
		if (node instanceof BeanReference) {
			String name = node.toStringAST().replaceAll("^[@&]'?|'$", "");
			if (!this.beanFactory.containsBean(name)) {
				throw new IllegalArgumentException(
						"key expression '" + key + "' refers to bean '" + name + "', which does not exist");
			}
		}
		if (node instanceof CompoundExpression && node.getChildCount() > 1 && this.stack != null
				&& !variables.parameters().contains("request")
				&& node.getChild(0) instanceof VariableReference variable && variable.toStringAST().equals("#request")) {
			checkRequestMember(node.getChild(1), key, this.stack);
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkReferences(node.getChild(i), key, variables);
		}
	}

	/**
	 * A key helper must exist, take its arguments and not be hidden by a method's parameter of its name (which would
	 * make the call fail on every request).
	 */
	private static void checkHelper(SpelNode node, String key, KeyVariables variables) {
		String call = node.toStringAST();
		String name = call.substring(1, call.indexOf('('));
		Integer arguments = KeyVariables.HELPERS.get(name);
		if (arguments == null) {
			throw new IllegalArgumentException("key expression '" + key + "' calls #" + name + "(), which is not a key"
					+ " helper; the helpers are " + String.join(", ", KeyVariables.HELPERS.keySet().stream().sorted()
						.map(LimitExpressionParser::helperForm).toList()));
		}
		if (variables.parameters().contains(name)) {
			throw new IllegalArgumentException("key expression '" + key + "' calls the key helper #" + name + "(),"
					+ " which the method's parameter '" + name + "' hides; rename the parameter, or read the request"
					+ " through #request");
		}
		if (node.getChildCount() != arguments) {
			throw new IllegalArgumentException("key expression '" + key + "' calls #" + name + " with "
					+ node.getChildCount() + " arguments; it takes " + arguments + ": " + helperForm(name));
		}
		if (name.equals("principalName") && !variables.names().contains("principal")) {
			throw new IllegalArgumentException("key expression '" + key + "' calls #principalName(); " + variables.hint());
		}
	}

	private static String helperForm(String helper) {
		return "#" + helper + ((KeyVariables.HELPERS.getOrDefault(helper, 0) == 1) ? "('name')" : "()");
	}

	/**
	 * {@code #request.name(...)} or {@code #request.name} must be a member of the stack's request type: a servlet
	 * method called on WebFlux's request fails on every request, and the request is keyed by its address.
	 */
	private static void checkRequestMember(SpelNode member, String key, RequestStack stack) {
		String name;
		boolean property;
		if (member instanceof MethodReference method) {
			name = method.getName();
			property = false;
		}
		else if (member instanceof PropertyOrFieldReference reference) {
			name = reference.getName();
			property = true;
		}
		else {
			return;
		}
		String capitalized = StringUtils.capitalize(name);
		int arguments = member.getChildCount();
		boolean found = Arrays.stream(stack.requestType().getMethods())
			.anyMatch((candidate) -> property
					? (candidate.getParameterCount() == 0 && (candidate.getName().equals("get" + capitalized)
							|| candidate.getName().equals("is" + capitalized) || candidate.getName().equals(name)))
					: candidate.getName().equals(name) && (candidate.getParameterCount() == arguments
							|| candidate.isVarArgs()))
				|| (property && Arrays.stream(stack.requestType().getFields()).anyMatch((f) -> f.getName().equals(name)));
		if (!found) {
			throw new IllegalArgumentException("key expression '" + key + "' reads #request." + name
					+ (property ? "" : "(" + "_, ".repeat(arguments).replaceAll(", $", "") + ")") + ", but on "
					+ stack.name() + " #request is a " + stack.requestType().getSimpleName() + ", which has no "
					+ (property ? "property " + name : "method " + name + " of " + arguments + ((arguments == 1) ? " argument" : " arguments"))
					+ ": the expression would fail on every request, and every client would be keyed by its address."
					+ " The key helpers read the same on every stack: #header('X-Api-Key'), #queryParam('name'),"
					+ " #clientIp(), #principalName()");
		}
	}

	private static boolean readsArguments(SpelNode node) {
		if (node instanceof VariableReference
				&& !KeyVariables.ofRequest().names().contains(node.toStringAST().substring(1))) {
			return true;
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			if (readsArguments(node.getChild(i))) {
				return true;
			}
		}
		return false;
	}

}
