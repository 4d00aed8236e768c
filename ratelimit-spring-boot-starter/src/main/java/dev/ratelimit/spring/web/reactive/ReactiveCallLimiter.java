package dev.ratelimit.spring.web.reactive;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.aop.BackgroundCallLimiter;
import dev.ratelimit.spring.aop.CallLimiter;
import dev.ratelimit.spring.aop.MethodLimits;
import dev.ratelimit.spring.aop.ChargeByOutcome;
import dev.ratelimit.spring.aop.ReactorCallAdapter;
import dev.ratelimit.spring.aop.ReturnType;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.ArrivalLimitSplitter;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.server.ServerWebExchange;

/**
 * Limited calls on WebFlux. A method returning {@code Mono} or {@code Flux} is decided when its result is subscribed
 * within a request (the exchange comes from the subscriber's context, put there by {@link RateLimitWebFilter}), and
 * runs only when admitted; a denial is the publisher's error. Subscribed outside a request (a scheduled job, a
 * listener), it is decided as {@code BackgroundCallLimiter} decides, waiting for a permit with a delay. Anything else
 * returned: a handler called by WebFlux is decided on the request's arrival ({@code RateLimitedMethodRegistry} refuses to
 * start with other such methods), and called by the application itself (a job), as {@code BackgroundCallLimiter} decides.
 */
public final class ReactiveCallLimiter implements CallLimiter {

	/** Reactor context key: the exchange of the request being handled. */
	static final String EXCHANGE = ReactiveCallLimiter.class.getName() + ".exchange";

	private final ObjectProvider<ReactiveEnforcer> decisions;

	/** WebFlux's invoker of handler methods. */
	private static final String HANDLER_INVOKER = "org.springframework.web.reactive.result.method.InvocableHandlerMethod";

	/** Calls outside requests, which carry no exchange. */
	private final BackgroundCallLimiter background;

	public ReactiveCallLimiter(ObjectProvider<ReactiveEnforcer> decisions, ObjectProvider<PermitWaiter> waits) {
		this.decisions = decisions;
		this.background = new BackgroundCallLimiter(waits);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation, Method method, MethodLimits methodLimits)
			throws Throwable {
		ReturnType type = ReturnType.of(method.getReturnType());
		if (type.readsSubscriberContext()) {
			return ReactorCallAdapter.deferContextual(type, (context) -> {
				ServerWebExchange exchange = context.getOrDefault(EXCHANGE, null);
				if (exchange == null) {
					return outside(invocation, method, methodLimits, type);
				}
				List<ConfiguredLimit> limits = methodLimits.of(new ExchangeLimitedRequest(exchange));
				if (ChargeByOutcome.any(limits)) {
					// one value only: checkChargedByOutcome stops startup for others
					return chargedByOutcome(exchange, invocation, method, limits);
				}
				return ReactorCallAdapter.after((held) -> decide(exchange, invocation, method, limits, held),
						this.decisions.getObject()::release, invocation, type);
			});
		}
		if (calledByWebFlux()) {
			// a handler returning a plain value: decided on the request's arrival (RateLimitWebFilter)
			return invocation.proceed();
		}
		// the same method called by the application itself, outside any request (a job calling it directly)
		return this.background.invoke(invocation, method, methodLimits);
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
	 * Subscribed outside a request (a scheduled job, a listener): the publisher {@link BackgroundCallLimiter} makes, which
	 * decides when subscribed and waits with a delay.
	 */
	private Publisher<Object> outside(MethodInvocation invocation, Method method, MethodLimits limits,
			ReturnType type) {
		try {
			return type.adapter().toPublisher(this.background.invoke(invocation, method, limits));
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	private Mono<Void> decide(ServerWebExchange exchange, MethodInvocation invocation, Method method,
			List<ConfiguredLimit> limits, Reservation held) {
		ExchangeLimitedRequest request = new ExchangeLimitedRequest(exchange);
		List<ConfiguredLimit> left = ArrivalLimitSplitter.leftForTheCall(request, method, limits);
		if (left.isEmpty()) {
			return Mono.empty();
		}
		return this.decisions.getObject().decide(request, left, method, invocation.getArguments(), held);
	}

	/** A {@code Mono} method with limits charged by outcome, within a request. */
	private Mono<Object> chargedByOutcome(ServerWebExchange exchange, MethodInvocation invocation, Method method,
			List<ConfiguredLimit> limits) {
		ExchangeLimitedRequest request = new ExchangeLimitedRequest(exchange);
		// the limits charged by outcome are always left for the call
		List<ConfiguredLimit> left = ArrivalLimitSplitter.leftForTheCall(request, method, limits);
		return this.decisions.getObject().invokeChargedByOutcome(request, left, invocation, method);
	}

	/**
	 * On WebFlux, nothing may wait for Redis: a method is limited when its {@code Mono} or {@code Flux} is
	 * subscribed (a type whose publisher reads the subscriber's context: another library's would not carry the
	 * request), or, returning anything else, as a request's handler before it runs, which is too early to read its
	 * arguments.
	 */
	@Override
	public void check(String name, Method method, List<ConfiguredLimit> limits) {
		ReturnType returnType = ReturnType.of(method.getReturnType());
		if (returnType.readsSubscriberContext()) {
			return;
		}
		if (!AnnotatedElementUtils.hasAnnotation(method, RequestMapping.class)) {
			throw new IllegalStateException("@RateLimited on " + name + " would not be applied: on WebFlux it limits"
					+ " request handler methods (@RequestMapping, @GetMapping, ...) and methods that return Mono or Flux,"
					+ " and this one returns " + returnType.name() + "; return a Mono or Flux, or limit the handler"
					+ " that calls it");
		}
		for (ConfiguredLimit limit : limits) {
			if (limit.readsArguments() && limit.key() != null) {
				throw new IllegalStateException("@RateLimited on " + name + " has the key '"
						+ limit.key().getExpressionString() + "', which reads the method's arguments; on WebFlux a handler"
						+ " that returns " + returnType.name() + " is decided before it runs, when its arguments do"
						+ " not exist yet: return a Mono or Flux, or key the limit on #request, #exchange, #principal or a"
						+ " bean");
			}
		}
	}

	/** On WebFlux, the outcome of a call is its {@code Mono}'s: its one value, within the request's context. */
	@Override
	public void checkChargedByOutcome(String name, ReturnType returnType) {
		if (returnType.kind() != ReturnType.Kind.SINGLE || !returnType.readsSubscriberContext()) {
			throw new IllegalStateException("@RateLimited on " + name + " charges by outcome (chargeOn, chargeWhen,"
					+ " chargeOnStatus, settleCost), which on WebFlux needs a method that returns a Mono, not a "
					+ returnType.name());
		}
	}

}
