package dev.ratelimit.spring.aop;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.limits.ConfiguredLimit;

/**
 * The limits of one call of a limited method: those of the call's request's configuration when it belongs to a
 * request (whose filter may have decided the handler's limits in it already), else those in force.
 */
public final class MethodLimits {

	private final RateLimitedMethodRegistry methods;

	private final Method method;

	private final Class<?> targetClass;

	private final List<ConfiguredLimit> inForce;

	MethodLimits(RateLimitedMethodRegistry methods, Method method, Class<?> targetClass, List<ConfiguredLimit> inForce) {
		this.methods = methods;
		this.method = method;
		this.targetClass = targetClass;
		this.inForce = inForce;
	}

	/** The limits in force, for a call outside any request. */
	public List<ConfiguredLimit> inForce() {
		return this.inForce;
	}

	/** The limits in the configuration of {@code request}, for a call within it. */
	public List<ConfiguredLimit> of(LimitedRequest request) {
		return this.methods.limitsFor(RequestConfiguration.of(request, this.methods.configurations()), this.method,
				this.targetClass);
	}

}
