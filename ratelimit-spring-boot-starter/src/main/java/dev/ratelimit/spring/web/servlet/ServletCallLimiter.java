package dev.ratelimit.spring.web.servlet;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.aop.BackgroundCallLimiter;
import dev.ratelimit.spring.aop.CallLimiter;
import dev.ratelimit.spring.aop.ChargeByOutcome;
import dev.ratelimit.spring.aop.LimitedCall;
import dev.ratelimit.spring.aop.MethodLimits;
import dev.ratelimit.spring.aop.ReturnType;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.ArrivalLimitSplitter;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.EvaluationContext;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Limited calls on Spring MVC: those made while the thread handles a request are decided before the method runs,
 * waiting for Redis within the request's deadline, and for a permit only when their annotation sets
 * {@code maxWait}; the filter has decided the handler's other limits on the request's arrival
 * ({@link HandlerLimitLookup}). Calls outside a request are decided as {@link BackgroundCallLimiter} decides them.
 */
public final class ServletCallLimiter implements CallLimiter {

	private final ObjectProvider<PermitWaiter> waits;

	private final BackgroundCallLimiter background;

	public ServletCallLimiter(ObjectProvider<PermitWaiter> waits) {
		this.waits = waits;
		this.background = new BackgroundCallLimiter(waits);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation, Method method, MethodLimits limits)
			throws Throwable {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet) || servlet.getResponse() == null) {
			return this.background.invoke(invocation, method, limits);
		}
		LimitedRequest request = new ServletLimitedRequest(servlet.getRequest(), servlet.getResponse());
		List<ConfiguredLimit> left = ArrivalLimitSplitter.leftForTheCall(request, method, limits.of(request));
		if (left.isEmpty()) {
			return invocation.proceed();
		}
		PermitWaiter waits = this.waits.getObject();
		RateLimitEnforcer enforcer = waits.enforcer();
		EvaluationContext context = enforcer.clientKeys()
			.context(servlet.getRequest(), servlet.getRequest().getUserPrincipal(), null, method,
					invocation.getArguments());
		if (ChargeByOutcome.any(left)) {
			return ChargeByOutcome.invoke(waits, new LimitedCall(invocation, method, request, left, context),
					waits.maxWait(left, true));
		}
		waits.enforce(request, left, context, waits.maxWait(left, true));
		return invocation.proceed();
	}

	/** On Spring MVC, the outcome of a call is its returned value: not a publisher's. */
	@Override
	public void checkChargedByOutcome(String name, ReturnType returnType) {
		if (returnType.reactive()) {
			throw new IllegalStateException("@RateLimited on " + name + " charges by outcome (chargeOn, chargeWhen,"
					+ " chargeOnStatus, settleCost), which on Spring MVC needs a method that returns its result, not a "
					+ returnType.name());
		}
	}

}
