package dev.ratelimit.spring.aop;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.ArrivalLimitSplitter;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@link RateLimited} to method calls: those made while an HTTP request is handled where the filter has not
 * decided them already on the request's arrival ({@link ArrivalLimitSplitter}): limits whose key reads the method's
 * arguments, and every limit of methods that are not the request's handler, or all when the filter is off. How a
 * call is tied to its request depends on the web stack ({@link CallLimiter}). A denial throws
 * {@link dev.ratelimit.spring.RateLimitExceededException} (on WebFlux, the returned publisher signals it), which the
 * framework's exception handling turns into the 429 response. Calls outside an HTTP request (jobs, listeners, other
 * threads) are limited too, and may wait for a permit ({@link BackgroundCallLimiter}): no annotated method is left
 * unlimited.
 *
 * <p>
 * An infrastructure advisor, as for {@code @Transactional} and {@code @Cacheable}: Spring Boot's auto-proxy creator
 * proxies exactly the beans that have limited methods (found by {@link RateLimitedMethodRegistry}, so annotations on
 * interfaces and classes count), and no other bean of the application. It runs before other advice
 * ({@link Ordered#HIGHEST_PRECEDENCE}), so a denied call opens no transaction.
 */
public final class RateLimitedAdvisor extends AbstractPointcutAdvisor {

	private final transient ObjectProvider<RateLimitedMethodRegistry> methods;

	private final transient Pointcut pointcut;

	private final transient Advice advice;

	private final transient ObjectProvider<CallLimiter> calls;

	/** Looked up on the first limited call, without a lock: an event loop may make it, and must never park. */
	private transient volatile @Nullable CallLimiter callLimiter;

	/**
	 * @param methods the limits of annotated methods, looked up when a method is first matched
	 * @param calls how the application's stack decides calls, looked up when a limited method is first called
	 */
	public RateLimitedAdvisor(ObjectProvider<RateLimitedMethodRegistry> methods, ObjectProvider<CallLimiter> calls) {
		this.methods = methods;
		this.pointcut = new StaticMethodMatcherPointcut() {

			{
				// Looks at annotations only, so that beans without any (the starter's own among them) are decided
				// without creating RateLimitedMethodRegistry.
				setClassFilter(RateLimitedMethodRegistry::mentionsRateLimited);
			}

			@Override
			public boolean matches(Method method, Class<?> targetClass) {
				if (method.getDeclaringClass() == Object.class) {
					return false;
				}
				try {
					return !methods.getObject().limitsFor(method, targetClass).isEmpty();
				}
				catch (IllegalStateException ex) {
					// An invalid annotation: RateLimitedMethodRegistry stops startup with its message once the beans exist,
					// rather than as an AOP failure deep in the creation of this bean.
					return true;
				}
			}

		};
		this.calls = calls;
		this.advice = (MethodInterceptor) (invocation) -> limit(invocation, callLimiter());
		setOrder(Ordered.HIGHEST_PRECEDENCE);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

	/** The stack's {@link CallLimiter}: two threads that look it up at once find the same singleton. */
	private CallLimiter callLimiter() {
		CallLimiter limiter = this.callLimiter;
		if (limiter == null) {
			limiter = this.calls.getObject();
			this.callLimiter = limiter;
		}
		return limiter;
	}

	private @Nullable Object limit(MethodInvocation invocation, CallLimiter calls) throws Throwable {
		if (invocation.getThis() == null) {
			return invocation.proceed();
		}
		Class<?> targetClass = AopUtils.getTargetClass(invocation.getThis());
		RateLimitedMethodRegistry methods = this.methods.getObject();
		List<ConfiguredLimit> limits = methods.limitsFor(invocation.getMethod(), targetClass);
		if (limits.isEmpty()) {
			return invocation.proceed();
		}
		return calls.invoke(invocation, AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass),
				new MethodLimits(methods, invocation.getMethod(), targetClass, limits));
	}

}
