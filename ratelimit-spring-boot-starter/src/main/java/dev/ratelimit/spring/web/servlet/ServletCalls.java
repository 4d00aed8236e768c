package dev.ratelimit.spring.web.servlet;


import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.web.ArrivalDecisions;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.aop.LimitedCalls;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.aop.BackgroundCalls;
import dev.ratelimit.spring.aop.OutcomeCharges;
import dev.ratelimit.spring.enforce.PermitWaits;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.EvaluationContext;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Limited calls on Spring MVC: those made while the thread handles a request are decided before the method runs,
 * waiting for Redis within the request's deadline, and for a permit only when their annotation sets
 * {@code maxWait}; the filter has decided the handler's other limits on the request's arrival
 * ({@link HandlerLimits}). Calls outside a request are decided as {@link BackgroundCalls} decides them.
 */
public final class ServletCalls implements LimitedCalls {

	private final ObjectProvider<PermitWaits> waits;

	private final BackgroundCalls background;

	public ServletCalls(ObjectProvider<PermitWaits> waits) {
		this.waits = waits;
		this.background = new BackgroundCalls(waits);
	}

	@Override
	public Object invoke(MethodInvocation invocation, Method method, List<ConfiguredLimit> limits) throws Throwable {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet) || servlet.getResponse() == null) {
			return this.background.invoke(invocation, method, limits);
		}
		LimitedRequest request = new ServletLimitedRequest(servlet.getRequest(), servlet.getResponse());
		List<ConfiguredLimit> left = ArrivalDecisions.leftForTheCall(request, method, limits);
		if (left.isEmpty()) {
			return invocation.proceed();
		}
		PermitWaits waits = this.waits.getObject();
		RateLimitEnforcer enforcer = waits.enforcer();
		EvaluationContext context = enforcer.clientKeys()
			.context(servlet.getRequest(), servlet.getRequest().getUserPrincipal(), null, method,
					invocation.getArguments());
		if (OutcomeCharges.any(left)) {
			return OutcomeCharges.invoke(waits, invocation, method, request, left, context, waits.maxWait(left, true));
		}
		waits.enforce(request, left, context, waits.maxWait(left, true));
		return invocation.proceed();
	}

}
