package dev.ratelimit.spring.web.reactive;


import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.web.ArrivalDecisions;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.aop.LimitedCalls;
import dev.ratelimit.spring.aop.BackgroundCalls;
import dev.ratelimit.spring.aop.OutcomeCharges;
import dev.ratelimit.spring.enforce.PermitWaits;
import dev.ratelimit.spring.aop.ReactorPermitWaits;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.server.ServerWebExchange;

/**
 * Limited calls on WebFlux. A method returning {@code Mono} or {@code Flux} is decided when its result is subscribed
 * within a request (the exchange comes from the subscriber's context, put there by {@link RateLimitWebFilter}), and
 * runs only when admitted; a denial is the publisher's error. Subscribed outside a request (a scheduled job, a
 * listener), it is decided as {@code BackgroundCalls} decides, waiting for a permit with a delay. Anything else
 * returned: a handler called by WebFlux is decided on the request's arrival ({@code RateLimitedMethods} refuses to
 * start with other such methods), and called by the application itself (a job), as {@code BackgroundCalls} decides.
 */
public final class ReactiveCalls implements LimitedCalls {

	/** Reactor context key: the exchange of the request being handled. */
	static final String EXCHANGE = ReactiveCalls.class.getName() + ".exchange";

	private final ObjectProvider<ReactiveDecisions> decisions;

	/** WebFlux's invoker of handler methods. */
	private static final String HANDLER_INVOKER = "org.springframework.web.reactive.result.method.InvocableHandlerMethod";

	/** Calls outside requests, which carry no exchange. */
	private final BackgroundCalls background;

	public ReactiveCalls(ObjectProvider<ReactiveDecisions> decisions, ObjectProvider<PermitWaits> waits) {
		this.decisions = decisions;
		this.background = new BackgroundCalls(waits);
	}

	@Override
	public Object invoke(MethodInvocation invocation, Method method, List<ConfiguredLimit> limits) throws Throwable {
		Class<?> returnType = method.getReturnType();
		if (Mono.class.isAssignableFrom(returnType)) {
			return Mono.<Object>deferContextual((context) -> {
				ServerWebExchange exchange = context.getOrDefault(EXCHANGE, null);
				if (exchange == null) {
					return Mono.<Object>from(outside(invocation, method, limits));
				}
				if (OutcomeCharges.any(limits)) {
					return chargedByOutcome(exchange, invocation, method, limits);
				}
				return decide(exchange, invocation, method, limits)
					.then(Mono.defer(() -> Mono.<Object>from(ReactorPermitWaits.proceed(invocation))));
			});
		}
		if (Publisher.class.isAssignableFrom(returnType) && returnType.isAssignableFrom(Flux.class)) {
			return Flux.<Object>deferContextual((context) -> {
				ServerWebExchange exchange = context.getOrDefault(EXCHANGE, null);
				if (exchange == null) {
					return Flux.<Object>from(outside(invocation, method, limits));
				}
				return decide(exchange, invocation, method, limits)
					.thenMany(Flux.<Object>defer(() -> Flux.<Object>from(ReactorPermitWaits.proceed(invocation))));
			});
		}
		if (calledByWebFlux()) {
			// a handler returning a plain value: decided on the request's arrival (RateLimitWebFilter)
			return invocation.proceed();
		}
		// the same method called by the application itself, outside any request (a job calling it directly)
		return this.background.invoke(invocation, method, limits);
	}

	/**
	 * Whether WebFlux's handler adapter is the caller. A call of a method returning a plain value carries no Reactor
	 * context that would tell a request's call from another, so the stack does: one walk, stopped at the first frame
	 * of InvocableHandlerMethod, for these methods only.
	 */
	private static boolean calledByWebFlux() {
		return StackWalker.getInstance()
			.walk((frames) -> frames.anyMatch((frame) -> frame.getClassName().equals(HANDLER_INVOKER)));
	}

	/**
	 * Subscribed outside a request (a scheduled job, a listener): the publisher {@link BackgroundCalls} makes, which
	 * decides when subscribed and waits with a delay.
	 */
	private Publisher<?> outside(MethodInvocation invocation, Method method, List<ConfiguredLimit> limits) {
		try {
			return (Publisher<?>) this.background.invoke(invocation, method, limits);
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	private Mono<Void> decide(ServerWebExchange exchange, MethodInvocation invocation, Method method,
			List<ConfiguredLimit> limits) {
		ExchangeLimitedRequest request = new ExchangeLimitedRequest(exchange);
		List<ConfiguredLimit> left = ArrivalDecisions.leftForTheCall(request, method, limits);
		if (left.isEmpty()) {
			return Mono.empty();
		}
		return this.decisions.getObject().decide(request, left, method, invocation.getArguments());
	}

	/** A {@code Mono} method with limits charged by outcome, within a request. */
	private Mono<Object> chargedByOutcome(ServerWebExchange exchange, MethodInvocation invocation, Method method,
			List<ConfiguredLimit> limits) {
		ExchangeLimitedRequest request = new ExchangeLimitedRequest(exchange);
		// the limits charged by outcome are always left for the call
		List<ConfiguredLimit> left = ArrivalDecisions.leftForTheCall(request, method, limits);
		return this.decisions.getObject().invokeChargedByOutcome(request, left, invocation, method);
	}

}
