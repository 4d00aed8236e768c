package dev.ratelimit.spring.web.servlet;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.aop.BackgroundCallLimiter;
import dev.ratelimit.spring.aop.CallEnd;
import dev.ratelimit.spring.aop.CallLimiter;
import dev.ratelimit.spring.aop.ChargeByOutcome;
import dev.ratelimit.spring.aop.LimitedCall;
import dev.ratelimit.spring.aop.MethodLimits;
import dev.ratelimit.spring.aop.ReturnType;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.ArrivalLimitSplitter;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.http.HttpEntity;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.bind.annotation.RequestMapping;

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
			.context(request, servlet.getRequest(), servlet.getRequest().getUserPrincipal(), null, method,
					invocation.getArguments());
		if (ChargeByOutcome.any(left)) {
			return ChargeByOutcome.invoke(waits, new LimitedCall(invocation, method, request, left, context),
					waits.maxWait(left, true));
		}
		Reservation held = new Reservation();
		waits.enforce(request, left, context, waits.maxWait(left, true), held);
		return CallEnd.proceed(invocation, enforcer, held);
	}

	/**
	 * A handler's concurrency limit whose key reads its arguments is decided when the handler is called, and its lease
	 * given back when the call ends; a handler whose response goes on after it returns (asynchronous, streaming)
	 * would give it back too early.
	 */
	@Override
	public void check(String name, Method method, List<ConfiguredLimit> limits) {
		if (!AnnotatedElementUtils.hasAnnotation(method, RequestMapping.class) || !respondsAfterReturning(method)) {
			return;
		}
		for (ConfiguredLimit limit : limits) {
			if (limit.concurrency() && limit.readsArguments() && limit.key() != null) {
				throw new IllegalStateException("@RateLimited on " + name + " is concurrency limit '" + limit.name()
						+ "' with the key '" + limit.key().getExpressionString() + "', which reads the method's"
						+ " arguments, so its lease is taken when the method is called and given back when it returns;"
						+ " this method returns " + method.getReturnType().getSimpleName() + ", whose response goes on"
						+ " after that: key the limit on #request, #principal or a bean, so that the request holds the"
						+ " lease until its response ends");
			}
		}
	}

	/**
	 * Whether Spring MVC answers a handler returning this type after the handler returned: an asynchronous or
	 * streaming value, also as the body of a {@code ResponseEntity} ({@code HttpEntity}).
	 */
	private static boolean respondsAfterReturning(Method method) {
		ResolvableType returned = ResolvableType.forMethodReturnType(method);
		Class<?> type = HttpEntity.class.isAssignableFrom(returned.toClass())
				? returned.as(HttpEntity.class).getGeneric(0).toClass() : returned.toClass();
		if (ReturnType.of(type).reactive() || ReturnType.of(type).kind() == ReturnType.Kind.STAGE) {
			return true;
		}
		for (String async : ASYNC_RESULTS) {
			if (ClassUtils.isPresent(async, ServletCallLimiter.class.getClassLoader())
					&& ClassUtils.resolveClassName(async, ServletCallLimiter.class.getClassLoader())
						.isAssignableFrom(type)) {
				return true;
			}
		}
		return false;
	}

	/** Spring MVC's asynchronous and streaming return values. */
	private static final List<String> ASYNC_RESULTS = List.of(
			"org.springframework.web.context.request.async.DeferredResult", "java.util.concurrent.Callable",
			"org.springframework.web.context.request.async.WebAsyncTask",
			"org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
			"org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody");

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
