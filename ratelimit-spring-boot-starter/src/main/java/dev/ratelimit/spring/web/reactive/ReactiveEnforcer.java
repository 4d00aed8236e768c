package dev.ratelimit.spring.web.reactive;

import java.lang.reflect.Method;
import java.security.Principal;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import dev.ratelimit.spring.aop.LimitedCall;
import dev.ratelimit.spring.aop.ReactorPermitWaiter;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.LimitConfiguration;
import dev.ratelimit.spring.limits.LimitConfigurations;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import org.springframework.expression.EvaluationContext;
import org.springframework.web.server.ServerWebExchange;

/**
 * The enforcer's decisions as {@link Mono}s, for the WebFilter and the advisor: the principal is read from the
 * exchange (the reactive security context) when a key may need it, and nothing blocks.
 *
 * <p>
 * A decision that waited for Redis completes on the limiter's client threads (or its timer's); the request then
 * continues on its own connection's event loop ({@link RequestThreads}), so the application's handlers never run
 * on (and never delay) the limiter's few Redis I/O threads.
 */
public final class ReactiveEnforcer {

	/** The exchange attribute of what the exchange holds until it ends: {@link #reservation}. */
	static final String RESERVATION = ReactiveEnforcer.class.getName() + ".reservation";

	private final PermitWaiter waits;

	private final RateLimitEnforcer enforcer;

	public ReactiveEnforcer(PermitWaiter waits) {
		this.waits = waits;
		this.enforcer = waits.enforcer();
	}

	/**
	 * Decides the request's filter rules and handler limits, keeping the leases they take in {@code held}.
	 * @return empty when the request goes ahead, or a {@link dev.ratelimit.spring.RateLimitException}
	 */
	Mono<Void> decide(ExchangeLimitedRequest request, List<ConfiguredLimit> limits, Reservation held) {
		return decide(request, limits, (principal) -> this.enforcer.clientKeys()
			.context(request, request.exchange().getRequest(), principal, request.exchange()), held);
	}

	/** Decides a call of an annotated method, with its arguments. */
	Mono<Void> decide(ExchangeLimitedRequest request, List<ConfiguredLimit> limits, Method method,
			@Nullable Object[] arguments, Reservation held) {
		return decide(request, limits, (principal) -> this.enforcer.clientKeys()
			.context(request, request.exchange().getRequest(), principal, request.exchange(), method, arguments), held);
	}

	private Mono<Void> decide(ExchangeLimitedRequest request, List<ConfiguredLimit> limits,
			Function<@Nullable Principal, EvaluationContext> context, Reservation held) {
		// waits for a permit only where every limit sets a wait (a rule's max-wait, an annotation's maxWait)
		return principal(request, limits).flatMap((principal) -> reactive(request).enforce(request, limits,
				context.apply(principal.orElse(null)), this.waits.maxWait(limits, true), held));
	}

	/**
	 * Decides {@code limits} for an exchange on behalf of another filter (the route filters of
	 * {@code ratelimit-spring-cloud-gateway}), with client keys evaluated in the context that {@code keys} gives for
	 * the request's principal (read only when a limit has a key expression).
	 * @return empty when the request goes ahead, or a {@link dev.ratelimit.spring.RateLimitException} to answer with
	 * ({@link ExchangeErrorHandler#render})
	 */
	public Mono<Void> decide(ServerWebExchange exchange, List<ConfiguredLimit> limits,
			Function<@Nullable Principal, EvaluationContext> keys, Reservation held) {
		return decide(new ExchangeLimitedRequest(exchange), limits, keys, held);
	}

	/** The configuration of limits that {@code exchange} reads from its first decision on. */
	public static LimitConfiguration configuration(ServerWebExchange exchange, LimitConfigurations configurations) {
		return RequestConfiguration.of(new ExchangeLimitedRequest(exchange), configurations);
	}

	/**
	 * What {@code exchange} holds until it ends (completed, failed or cancelled by the client going away), given
	 * back by the starter's {@code WebFilter}; {@code null} where that filter did not see the exchange.
	 */
	public static @Nullable Reservation reservation(ServerWebExchange exchange) {
		return exchange.getAttribute(RESERVATION);
	}

	/**
	 * The exchange whose request a publisher is subscribed for, as the starter's {@code WebFilter} puts it in the
	 * Reactor context: for code that is given no exchange (Spring Cloud Gateway's {@code RateLimiter}s); empty
	 * outside a request.
	 */
	public static Mono<ServerWebExchange> currentExchange() {
		return Mono.deferContextual((context) -> Mono.justOrEmpty(context.getOrEmpty(ReactiveCallLimiter.EXCHANGE)));
	}

	/**
	 * Where a publisher that waited for the limiter goes on for {@code exchange}: its connection's event loop on
	 * Reactor Netty ({@link RequestThreads}), for code that decides without this class (Spring Cloud Gateway's
	 * {@code RateLimiter}s).
	 */
	public static Scheduler requestThread(ServerWebExchange exchange) {
		return RequestThreads.of(exchange);
	}

	/** Gives back the leases {@code held} holds, once its request or call has ended; never blocks. */
	public void release(Reservation held) {
		this.enforcer.release(held);
	}

	/** A {@code Mono} method's call with limits charged by outcome ({@link ReactorPermitWaiter}). */
	Mono<Object> invokeChargedByOutcome(ExchangeLimitedRequest request, List<ConfiguredLimit> limits,
			MethodInvocation invocation, Method method) {
		return principal(request, limits).flatMap((principal) -> reactive(request).invokeChargedByOutcome(
				new LimitedCall(invocation, method, request, limits,
						this.enforcer.clientKeys()
							.context(request, request.exchange().getRequest(), principal.orElse(null), request.exchange(),
									method, invocation.getArguments())),
				this.waits.maxWait(limits, true)));
	}

	/** Waits that go on, after Redis answers, on the request's own event loop. */
	private ReactorPermitWaiter reactive(ExchangeLimitedRequest request) {
		return new ReactorPermitWaiter(this.waits, () -> RequestThreads.of(request.exchange()));
	}

	/** The principal, read only when a limit has a key expression (the default key is the client's address). */
	private static Mono<Optional<Principal>> principal(ExchangeLimitedRequest request, List<ConfiguredLimit> limits) {
		if (limits.stream().allMatch((limit) -> limit.key() == null)) {
			return Mono.just(Optional.empty());
		}
		return request.exchange().getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty());
	}

}
