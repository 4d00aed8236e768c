package dev.ratelimit.spring.aop;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.KeyVariables;
import dev.ratelimit.spring.limits.LimitConfiguration;
import dev.ratelimit.spring.limits.LimitConfigurations;

import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.RepeatableContainers;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * The limits of {@link RateLimited} methods: resolved once per method and configuration (in the configuration, which
 * resolves them again when it changes: {@link LimitConfiguration#methodLimits}), and for every bean checked at
 * startup, so that an invalid annotation, or one that the web stack could not apply, stops the application with a
 * message naming the method.
 */
public final class RateLimitedMethodRegistry implements SmartInitializingSingleton {

	private final LimitConfigurations configurations;

	private final ConfigurableListableBeanFactory beanFactory;

	private final CallLimiter calls;

	private volatile boolean anyAnnotated;

	/**
	 * @param calls how the application's stack decides calls, whose rules every limited method is checked against
	 */
	public RateLimitedMethodRegistry(LimitConfigurations configurations, ConfigurableListableBeanFactory beanFactory,
			CallLimiter calls) {
		this.configurations = configurations;
		this.beanFactory = beanFactory;
		this.calls = calls;
	}

	/**
	 * The limits of {@code method} invoked on {@code targetClass} in the configuration in force: the class's
	 * annotations, then the method's.
	 */
	public List<ConfiguredLimit> limitsFor(Method method, Class<?> targetClass) {
		return limitsFor(this.configurations.current(), method, targetClass);
	}

	/** {@link #limitsFor(Method, Class)} in {@code configuration}: a request's ({@code RequestConfiguration}). */
	public List<ConfiguredLimit> limitsFor(LimitConfiguration configuration, Method method, Class<?> targetClass) {
		return configuration.methodLimits(new MethodClassKey(method, targetClass),
				(in) -> resolve(in, method, targetClass));
	}

	/** The limits in force and their changes. */
	public LimitConfigurations configurations() {
		return this.configurations;
	}

	/** Whether any bean has a {@code @RateLimited} method; known once the singletons are instantiated. */
	public boolean anyAnnotated() {
		return this.anyAnnotated;
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
			ReflectionUtils.doWithMethods(userClass, (method) -> {
				List<ConfiguredLimit> limits = limitsFor(method, userClass);
				if (limits.isEmpty()) {
					return;
				}
				this.anyAnnotated = true;
				if (!advised(name)) {
					throw new IllegalStateException("@RateLimited on " + userClass.getName() + "." + method.getName()
							+ " would not be applied: the bean is not proxied by Spring AOP (spring.aop.auto=false?"
							+ " a final class?)");
				}
				if (!proxyable(method)) {
					throw new IllegalStateException("@RateLimited on " + userClass.getName() + "." + method.getName()
							+ " would not be applied: Spring AOP can only limit methods that are not private, final or static");
				}
				if (limits.stream().anyMatch(ConfiguredLimit::chargedByOutcome)) {
					checkChargedByOutcome(userClass, method, limits);
				}
				this.calls.check(userClass.getName() + "." + method.getName(), method, limits);
			}, (method) -> !method.isBridge() && !method.isSynthetic() && method.getDeclaringClass() != Object.class
					&& (annotatedClass || !annotations(method).isEmpty()));
		}
	}

	/**
	 * Charge by outcome needs the call's outcome: a returned value, or on WebFlux and outside requests a
	 * {@code Mono}'s (one value of a reactive type); not a {@code Flux}, a {@code CompletionStage} or a
	 * {@code Future} yet.
	 */
	private void checkChargedByOutcome(Class<?> userClass, Method method, List<ConfiguredLimit> limits) {
		String name = userClass.getName() + "." + method.getName();
		boolean byStatus = limits.stream().anyMatch((limit) -> limit.charge() != null && !limit.charge().statuses().isEmpty());
		if (byStatus && !AnnotatedElementUtils.hasAnnotation(method, RequestMapping.class)) {
			// elsewhere a returned value stands for 200: the limit would never be charged
			throw new IllegalStateException("@RateLimited on " + name + " has chargeOnStatus, which applies to HTTP"
					+ " handler methods (@RequestMapping, @PostMapping, ...); charge a service method with chargeOn"
					+ " (exception types) or chargeWhen");
		}
		ReturnType returnType = ReturnType.of(method.getReturnType());
		this.calls.checkChargedByOutcome(name, returnType);
		if (!returnType.outcomeOnReturn()) {
			throw new IllegalStateException("@RateLimited on " + name + " charges by outcome (chargeOn, chargeWhen,"
					+ " chargeOnStatus, settleCost), which needs a method that returns its result or a Mono, not a "
					+ returnType.name());
		}
	}

	/** Whether {@link RateLimited} appears on the class, a superclass, an interface or any of their methods. */
	static boolean mentionsRateLimited(Class<?> type) {
		Class<?> userClass = ClassUtils.getUserClass(type);
		if (!annotations(userClass).isEmpty()) {
			return true;
		}
		boolean[] found = new boolean[1];
		ReflectionUtils.doWithMethods(userClass, (method) -> found[0] = true,
				(method) -> !found[0] && !annotations(method).isEmpty());
		return found[0];
	}

	/** Whether the singleton {@code name}, where it exists already, goes through {@link RateLimitedAdvisor}. */
	private boolean advised(String name) {
		if (!this.beanFactory.containsSingleton(name)) {
			return true;
		}
		return this.beanFactory.getSingleton(name) instanceof Advised advised
				&& Arrays.stream(advised.getAdvisors()).anyMatch(RateLimitedAdvisor.class::isInstance);
	}

	private static List<ConfiguredLimit> resolve(LimitConfiguration configuration, Method method, Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		Method specific = ClassUtils.getMostSpecificMethod(method, userClass);
		String methodName = userClass.getSimpleName() + "." + specific.getName();
		String source = "@RateLimited on " + userClass.getName() + "." + specific.getName() + "("
				+ String.join(", ", Arrays.stream(specific.getParameterTypes()).map(Class::getSimpleName).toList())
				+ ")";
		KeyVariables variables = KeyVariables.of(specific);
		List<ConfiguredLimit> limits = new ArrayList<>();
		if (appliesClassLimits(specific)) {
			for (RateLimited annotation : annotations(userClass)) {
				limits.add(configuration.names().register(configuration.resolver().fromAnnotation(annotation, userClass.getSimpleName(),
						"@RateLimited on class " + userClass.getName(), variables)));
			}
		}
		for (RateLimited annotation : annotations(specific)) {
			limits.add(configuration.names()
				.register(configuration.resolver().fromAnnotation(annotation, methodName, source, variables)));
		}
		return List.copyOf(limits);
	}

	/**
	 * A class's limits apply to the methods that handle calls: handler methods ({@code @RequestMapping} and its
	 * variants) and any other method Spring AOP can advise, but not the controller's helpers that Spring MVC calls
	 * around a handler ({@code @InitBinder}, {@code @ModelAttribute}, {@code @ExceptionHandler}), which would charge
	 * one request several times. A handler the proxy cannot advise gets them too, so that startup fails on it.
	 */
	private static boolean appliesClassLimits(Method method) {
		return method.getDeclaringClass() != Object.class
				&& !AnnotatedElementUtils.hasAnnotation(method, InitBinder.class)
				&& !AnnotatedElementUtils.hasAnnotation(method, ModelAttribute.class)
				&& !AnnotatedElementUtils.hasAnnotation(method, ExceptionHandler.class)
				&& (proxyable(method) || AnnotatedElementUtils.hasAnnotation(method, RequestMapping.class));
	}

	private static boolean proxyable(Method method) {
		int modifiers = method.getModifiers();
		return !Modifier.isPrivate(modifiers) && !Modifier.isFinal(modifiers) && !Modifier.isStatic(modifiers);
	}

	/**
	 * Every {@link RateLimited} on the element, its superclasses and interfaces, repeated ones each counted (a set
	 * would fold two identical annotations into one).
	 */
	private static List<RateLimited> annotations(AnnotatedElement element) {
		return MergedAnnotations.from(element, SearchStrategy.TYPE_HIERARCHY, RepeatableContainers.standardRepeatables())
			.stream(RateLimited.class)
			.map(MergedAnnotation::synthesize)
			.toList();
	}

}
