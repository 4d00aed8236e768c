package dev.ratelimit.spring.aop;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * How {@link RateLimitedAdvisor} decides a call of a limited method on one web stack: {@code ServletCallLimiter} on Spring
 * MVC, where the request is the thread's; {@code ReactiveCallLimiter} on WebFlux, where it is the subscriber's.
 */
public interface CallLimiter {

	/**
	 * Decides the call where it belongs to a request, and proceeds with it when admitted.
	 * @param invocation the call
	 * @param method the most specific method of the target class
	 * @param limits the method's limits (not empty): in its request's configuration within a request
	 * @return the method's result (on WebFlux, a publisher that decides when subscribed)
	 * @throws Throwable what the method throws, or a {@link dev.ratelimit.spring.RateLimitException} when denied
	 */
	@Nullable Object invoke(MethodInvocation invocation, Method method, MethodLimits limits) throws Throwable;

	/**
	 * Checked at startup for every limited method: stops the application, naming the method, where this stack could
	 * not apply its limits. None by default.
	 * @param name the method's class and name, for messages
	 * @param method the method
	 * @param limits its limits; not empty
	 * @throws IllegalStateException naming the method
	 */
	default void check(String name, Method method, List<ConfiguredLimit> limits) {
	}

	/**
	 * Checked at startup for every method charged by outcome, before the rules of every stack: stops the application,
	 * naming the method, where this stack cannot see the outcome of a method returning {@code returnType}. None by
	 * default.
	 * @param returnType what the method returns, as {@link ReturnType} tells it apart
	 * @throws IllegalStateException naming the method
	 */
	default void checkChargedByOutcome(String name, ReturnType returnType) {
	}

}
