package dev.ratelimit.spring.limits;

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

	LimitExpressionParser(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
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
					+ variables.hint().replaceFirst("^known are ", "")));
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
					"known are #result, and " + variables.hint().replaceFirst("^known are ", "")));
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
						+ ", which is not defined; " + variables.hint());
			}
		}
		if (node instanceof BeanReference) {
			String name = node.toStringAST().replaceAll("^[@&]'?|'$", "");
			if (!this.beanFactory.containsBean(name)) {
				throw new IllegalArgumentException(
						"key expression '" + key + "' refers to bean '" + name + "', which does not exist");
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkReferences(node.getChild(i), key, variables);
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
