package dev.ratelimit.spring;

import java.lang.reflect.Method;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;

/**
 * The hints for a native image of what {@link RateLimited} marks, which the starter reaches by reflection at run
 * time: the starter finds the limited methods among each bean's methods and reads their annotations, names their
 * parameters for key expressions ({@code #username}), and SpEL calls public methods of the arguments (keys) and of
 * the result ({@code chargeWhen = "#result..."}). An annotated class has all its methods limited, so all are listed.
 * Applied by Spring's AOT processing to every bean class that has the annotation ({@code @Reflective}); expressions
 * that go further than an argument's or result's own methods ({@code #order.customer.id}) need hints of the
 * application's own.
 */
class RateLimitedReflectiveProcessor extends SimpleReflectiveProcessor {

	@Override
	protected void registerTypeHint(ReflectionHints hints, Class<?> type) {
		hints.registerType(type, MemberCategory.INVOKE_DECLARED_METHODS, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

	@Override
	protected void registerMethodHint(ReflectionHints hints, Method method) {
		super.registerMethodHint(hints, method);
		for (Class<?> parameter : method.getParameterTypes()) {
			registerExpressionRoot(hints, parameter);
		}
		registerExpressionRoot(hints, method.getReturnType());
	}

	private static void registerExpressionRoot(ReflectionHints hints, Class<?> type) {
		Class<?> root = type;
		while (root.isArray()) {
			root = root.getComponentType();
		}
		if (!root.isPrimitive()) {
			hints.registerType(root, MemberCategory.INVOKE_PUBLIC_METHODS);
		}
	}

}
