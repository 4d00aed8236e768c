package dev.ratelimit.spring.web.reactive;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.LimitConfigurations;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.cors.reactive.CorsUtils;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Decides every request on its arrival, on WebFlux: the rules of {@code ratelimit.filter.rules} that match it
 * (functional endpoints included), together with the {@code @RateLimited} limits of the handler method it goes to
 * (except those whose key reads the method's arguments, which the advisor decides when the method's result is
 * subscribed), in one decision. It also makes the exchange known to that advisor, through the Reactor context.
 *
 * <p>
 * A denial is answered as WebFlux answers errors raised before a handler ({@link ExchangeErrorHandler}); the rest of the
 * chain and the handler do not run.
 */
public final class RateLimitWebFilter implements WebFilter, Ordered {

	private final LimitConfigurations configurations;

	private final ReactiveEnforcer decisions;

	private final ReactiveHandlerLimitLookup handlerLimits;

	private final ExchangeErrorHandler errors;

	private final int order;

	public RateLimitWebFilter(LimitConfigurations configurations, ReactiveEnforcer decisions, ReactiveHandlerLimitLookup handlerLimits,
			ExchangeErrorHandler errors, int order) {
		this.configurations = configurations;
		this.decisions = decisions;
		this.handlerLimits = handlerLimits;
		this.errors = errors;
		this.order = order;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		if (CorsUtils.isPreFlightRequest(request)) {
			// A CORS preflight is the browser asking, not the client acting: charging it would halve the budget.
			return chain.filter(exchange);
		}
		List<ConfiguredLimit> matched = RequestConfiguration.of(new ExchangeLimitedRequest(exchange), this.configurations)
			.rules()
			.matching(request.getMethod().name(), request.getPath().pathWithinApplication());
		return Mono.defer(() -> {
			// the leases of the request's concurrency limits, given back when its response ends: completed, failed,
			// or cancelled because the client went away
			Reservation held = new Reservation();
			// the route filters of a gateway hold their leases here too, for as long as the exchange lasts
			exchange.getAttributes().put(ReactiveEnforcer.RESERVATION, held);
			return this.handlerLimits.decideOnArrival(exchange)
				.flatMap((handlerLimits) -> admitted(exchange, matched, handlerLimits, held))
				.flatMap((admitted) -> admitted ? chain.filter(exchange) : Mono.<Void>empty())
				.doFinally((signal) -> this.decisions.release(held));
		}).contextWrite((context) -> context.put(ReactiveCallLimiter.EXCHANGE, exchange));
	}

	private Mono<Boolean> admitted(ServerWebExchange exchange, List<ConfiguredLimit> rules,
			List<ConfiguredLimit> handlerLimits, Reservation held) {
		if (rules.isEmpty() && handlerLimits.isEmpty()) {
			return Mono.just(true);
		}
		List<ConfiguredLimit> limits = new ArrayList<>(rules);
		limits.addAll(handlerLimits);
		return this.decisions.decide(new ExchangeLimitedRequest(exchange), limits, held)
			.thenReturn(true)
			.onErrorResume(RateLimitException.class, (ex) -> {
				ReactiveHandlerLimitLookup.addCorsFields(exchange);
				return this.errors.render(exchange, ex).thenReturn(false);
			});
	}

}
