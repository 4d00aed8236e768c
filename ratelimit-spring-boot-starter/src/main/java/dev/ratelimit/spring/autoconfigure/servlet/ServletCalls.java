package dev.ratelimit.spring.autoconfigure.servlet;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.autoconfigure.ArrivalDecisions;
import dev.ratelimit.spring.autoconfigure.ConfiguredLimit;
import dev.ratelimit.spring.autoconfigure.LimitedCalls;
import dev.ratelimit.spring.autoconfigure.LimitedRequest;
import dev.ratelimit.spring.autoconfigure.RateLimitEnforcer;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Limited calls on Spring MVC: those made while the thread handles a request are decided before the method runs,
 * waiting for Redis within the request's deadline; the filter has decided the handler's other limits on the
 * request's arrival ({@link HandlerLimits}). Calls outside a request are not limited: the limits are per client of a
 * request.
 */
final class ServletCalls implements LimitedCalls {

	private final ObjectProvider<RateLimitEnforcer> enforcer;

	ServletCalls(ObjectProvider<RateLimitEnforcer> enforcer) {
		this.enforcer = enforcer;
	}

	@Override
	public Object invoke(MethodInvocation invocation, Method method, List<ConfiguredLimit> limits) throws Throwable {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet) || servlet.getResponse() == null) {
			return invocation.proceed();
		}
		LimitedRequest request = new ServletLimitedRequest(servlet.getRequest(), servlet.getResponse());
		List<ConfiguredLimit> left = ArrivalDecisions.leftForTheCall(request, method, limits);
		if (!left.isEmpty()) {
			RateLimitEnforcer enforcer = this.enforcer.getObject();
			enforcer.enforceAndWait(request, left, enforcer.clientKeys()
				.context(servlet.getRequest(), servlet.getRequest().getUserPrincipal(), null, method,
						invocation.getArguments()));
		}
		return invocation.proceed();
	}

}
