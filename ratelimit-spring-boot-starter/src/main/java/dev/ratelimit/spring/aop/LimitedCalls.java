package dev.ratelimit.spring.aop;

import dev.ratelimit.spring.limits.ConfiguredLimit;

import java.lang.reflect.Method;
import java.util.List;

import org.aopalliance.intercept.MethodInvocation;

/**
 * How {@link RateLimitedAdvisor} decides a call of a limited method on one web stack: {@code ServletCalls} on Spring
 * MVC, where the request is the thread's; {@code ReactiveCalls} on WebFlux, where it is the subscriber's. Internal to
 * the starter.
 */
public interface LimitedCalls {

	/**
	 * Decides the call where it belongs to a request, and proceeds with it when admitted.
	 * @param invocation the call
	 * @param method the most specific method of the target class
	 * @param limits the method's limits; not empty
	 * @return the method's result (on WebFlux, a publisher that decides when subscribed)
	 * @throws Throwable what the method throws, or a {@link dev.ratelimit.spring.RateLimitException} when denied
	 */
	Object invoke(MethodInvocation invocation, Method method, List<ConfiguredLimit> limits) throws Throwable;

}
