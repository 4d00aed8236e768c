package dev.ratelimit.spring.autoconfigure.reactive;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.autoconfigure.ArrivalDecisions;
import dev.ratelimit.spring.autoconfigure.ConfiguredLimit;
import dev.ratelimit.spring.autoconfigure.LimitedCalls;
import dev.ratelimit.spring.autoconfigure.calls.BackgroundCall;
import dev.ratelimit.spring.autoconfigure.calls.BackgroundCalls;
import dev.ratelimit.spring.autoconfigure.calls.OutcomeCharges;
import dev.ratelimit.spring.autoconfigure.calls.PermitWaits;
import dev.ratelimit.spring.autoconfigure.calls.ReactorPermitWaits;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

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
final class ReactiveCalls implements LimitedCalls {

	/** Reactor context key: the exchange of the request being handled. */
	static final String EXCHANGE = ReactiveCalls.class.getName() + ".exchange";

	private final ObjectProvider<ReactiveDecisions> decisions;

	/** WebFlux's invoker of handler methods. */
	private static final String HANDLER_INVOKER = "org.springframework.web.reactive.result.method.InvocableHandlerMethod";

	private final ObjectProvider<PermitWaits> waits;

	private final BackgroundCalls background;

	ReactiveCalls(ObjectProvider<ReactiveDecisions> decisions, ObjectProvider<PermitWaits> waits) {
		this.decisions = decisions;
		this.waits = waits;
		this.background = new BackgroundCalls(waits);
	}

	@Override
	public Object invoke(MethodInvocation invocation, Method method, List<ConfiguredLimit> limits) throws Throwable {
		Class<?> returnType = method.getReturnType();
		if (Mono.class.isAssignableFrom(returnType)) {
			if (OutcomeCharges.any(limits)) {
				return Mono.deferContextual((context) -> chargedByOutcome(context, invocation, method, limits));
			}
			return Mono.deferContextual((context) -> decide(context, invocation, method, limits)
				.then(Mono.defer(() -> Mono.from(ReactorPermitWaits.proceed(invocation)))));
		}
		if (Publisher.class.isAssignableFrom(returnType) && returnType.isAssignableFrom(Flux.class)) {
			return Flux.deferContextual((context) -> decide(context, invocation, method, limits)
				.thenMany(Flux.defer(() -> ReactorPermitWaits.proceed(invocation))));
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

	private Mono<Void> decide(ContextView context, MethodInvocation invocation, Method method,
			List<ConfiguredLimit> limits) {
		ServerWebExchange exchange = context.getOrDefault(EXCHANGE, null);
		if (exchange == null) {
			// outside a request (a scheduled job, a listener): as BackgroundCalls decides, waiting with a delay
			PermitWaits waits = this.waits.getObject();
			return ReactorPermitWaits.enforce(waits, new BackgroundCall(), limits,
					waits.enforcer().clientKeys().context(null, null, null, method, invocation.getArguments()),
					waits.maxWait(limits, false));
		}
		ExchangeLimitedRequest request = new ExchangeLimitedRequest(exchange);
		List<ConfiguredLimit> left = ArrivalDecisions.leftForTheCall(request, method, limits);
		if (left.isEmpty()) {
			return Mono.empty();
		}
		return this.decisions.getObject().decide(request, left, method, invocation.getArguments());
	}

	/** A {@code Mono} method with limits charged by outcome, within a request or outside one. */
	private Mono<Object> chargedByOutcome(ContextView context, MethodInvocation invocation, Method method,
			List<ConfiguredLimit> limits) {
		ServerWebExchange exchange = context.getOrDefault(EXCHANGE, null);
		if (exchange == null) {
			PermitWaits waits = this.waits.getObject();
			return ReactorPermitWaits.invokeChargedByOutcome(waits, invocation, method, new BackgroundCall(), limits,
					waits.enforcer().clientKeys().context(null, null, null, method, invocation.getArguments()),
					waits.maxWait(limits, false), Schedulers::parallel);
		}
		ExchangeLimitedRequest request = new ExchangeLimitedRequest(exchange);
		// the limits charged by outcome are always left for the call
		List<ConfiguredLimit> left = ArrivalDecisions.leftForTheCall(request, method, limits);
		return this.decisions.getObject().invokeChargedByOutcome(request, left, invocation, method);
	}

}
