package dev.ratelimit.spring.autoconfigure;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.spring.RateLimited;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The limits of {@link RateLimited} methods: resolved once per method and cached, and for every bean checked at
 * startup, so that an invalid annotation stops the application with a message naming the method.
 */
final class RateLimitedMethods implements SmartInitializingSingleton {

	private final LimitFactory factory;

	private final LimitNames names;

	private final ConfigurableListableBeanFactory beanFactory;

	private final Map<MethodClassKey, List<ConfiguredLimit>> cache = new ConcurrentHashMap<>();

	RateLimitedMethods(LimitFactory factory, LimitNames names, ConfigurableListableBeanFactory beanFactory) {
		this.factory = factory;
		this.names = names;
		this.beanFactory = beanFactory;
	}

	/** The limits of {@code method} invoked on {@code targetClass}: the class's annotations, then the method's. */
	List<ConfiguredLimit> limitsFor(Method method, Class<?> targetClass) {
		return this.cache.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> resolve(method, targetClass));
	}

	@Override
	public void afterSingletonsInstantiated() {
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(name, false);
			if (type == null) {
				continue;
			}
			Class<?> userClass = ClassUtils.getUserClass(type);
			boolean annotatedClass = !annotations(userClass).isEmpty();
			ReflectionUtils.doWithMethods(userClass, (method) -> limitsFor(method, userClass),
					(method) -> !method.isBridge() && !method.isSynthetic()
							&& method.getDeclaringClass() != Object.class
							&& (annotatedClass || !annotations(method).isEmpty()));
		}
	}

	private List<ConfiguredLimit> resolve(Method method, Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		Method specific = ClassUtils.getMostSpecificMethod(method, userClass);
		String methodName = userClass.getSimpleName() + "." + specific.getName();
		String source = "@RateLimited on " + userClass.getName() + "." + specific.getName() + "("
				+ String.join(", ", java.util.Arrays.stream(specific.getParameterTypes()).map(Class::getSimpleName).toList()) + ")";
		List<ConfiguredLimit> limits = new ArrayList<>();
		for (RateLimited annotation : annotations(userClass)) {
			limits.add(this.names.register(this.factory.fromAnnotation(annotation, userClass.getSimpleName(),
					"@RateLimited on class " + userClass.getName())));
		}
		for (RateLimited annotation : annotations(specific)) {
			limits.add(this.names.register(this.factory.fromAnnotation(annotation, methodName, source)));
		}
		return List.copyOf(limits);
	}

	private static Set<RateLimited> annotations(java.lang.reflect.AnnotatedElement element) {
		return AnnotatedElementUtils.findMergedRepeatableAnnotations(element, RateLimited.class);
	}

}
