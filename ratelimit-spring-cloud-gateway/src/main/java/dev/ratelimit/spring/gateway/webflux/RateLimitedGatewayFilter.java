package dev.ratelimit.spring.gateway.webflux;

import java.util.List;
import java.util.Optional;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.gateway.LimitedRoute;
import dev.ratelimit.spring.gateway.RouteKeys;
import dev.ratelimit.spring.gateway.RouteLimits;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.reactive.ExchangeErrorHandler;
import dev.ratelimit.spring.web.reactive.ReactiveEnforcer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.expression.Expression;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;

/**
 * One route's {@code RateLimited} filter: decides the route's limit for each request before it is proxied, and
 * holds a concurrency limit's lease until the exchange ends (the proxied response written, an error, or the client
 * gone).
 */
final class RateLimitedGatewayFilter implements GatewayFilter {

	private static final Log logger = LogFactory.getLog(RateLimitedGatewayFilter.class);

	private final RateLimitedGatewayFilterFactory.Config config;

	private final @Nullable Expression key;

	/** The limit on the route of the last request: one route, unless the Java DSL put this filter on several. */
	private volatile @Nullable LimitedRoute route;

	private final RouteLimits limits;

	private final ReactiveEnforcer decisions;

	private final ExchangeErrorHandler errors;

	/** The exchange attribute that says this filter has decided the exchange. */
	private final String decided = RateLimitedGatewayFilter.class.getName() + "@" + System.identityHashCode(this);

	/**
	 * @param route the limit on the filter's route, where its route was known as it was built
	 */
	RateLimitedGatewayFilter(RateLimitedGatewayFilterFactory.Config config, @Nullable Expression key,
			@Nullable LimitedRoute route, RouteLimits limits, ReactiveEnforcer decisions, ExchangeErrorHandler errors) {
		this.config = config;
		this.key = key;
		this.route = route;
		this.limits = limits;
		this.decisions = decisions;
		this.errors = errors;
	}

	/** The route's limit as its arguments give it. */
	RateLimitedGatewayFilterFactory.Config config() {
		return this.config;
	}

	/**
	 * The limit on {@code routeId}, computed once per route.
	 * @throws IllegalArgumentException naming the route when an argument is invalid
	 */
	LimitedRoute route(String routeId) {
		LimitedRoute route = this.route;
		if (route == null || !route.routeId().equals(routeId)) {
			route = this.limits.route(routeId, this.config, this.key);
			this.route = route;
		}
		return route;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
		if (exchange.getAttributes().putIfAbsent(this.decided, Boolean.TRUE) != null) {
			// a Retry or CircuitBreaker filter before this one running the rest of the chain again: one charge per
			// client request, and a denial was answered already
			return exchange.getResponse().isCommitted() ? Mono.empty() : chain.filter(exchange);
		}
		List<ConfiguredLimit> limits;
		try {
			limits = this.limits.resolve(ReactiveEnforcer.configuration(exchange, this.limits.configurations()),
					route(routeId(exchange)));
		}
		catch (IllegalArgumentException ex) {
			// only a route built where it could not be checked (a Java DSL route added after startup): refused, not
			// let through unlimited
			logger.error("Refusing the requests of a route whose rate limit is invalid: " + ex.getMessage());
			ServerWebExchangeUtils.setResponseStatus(exchange, HttpStatus.SERVICE_UNAVAILABLE);
			return exchange.getResponse().setComplete();
		}
		// the leases are the exchange's, given back by the starter's WebFilter when the exchange ends; a filter
		// that runs again (Retry) finds them held
		Reservation exchangeHeld = ReactiveEnforcer.reservation(exchange);
		Reservation held = (exchangeHeld != null) ? exchangeHeld : new Reservation();
		Mono<Void> proxied = resolvedKey(exchange)
			.flatMap((resolved) -> this.decisions
				.decide(exchange, limits,
						(principal) -> RouteKeys.context(ExchangeKeys.of(exchange), principal, resolved.orElse(null)),
						held)
				.thenReturn(true)
				.onErrorResume(RateLimitException.class, (ex) -> this.errors.render(exchange, ex).thenReturn(false)))
			.flatMap((admitted) -> admitted ? chain.filter(exchange) : Mono.<Void>empty());
		return (exchangeHeld != null) ? proxied : proxied.doFinally((signal) -> this.decisions.release(held));
	}

	/** The key resolver's key, empty when it resolves none or fails: then the key is missing. */
	private Mono<Optional<String>> resolvedKey(ServerWebExchange exchange) {
		KeyResolver resolver = this.config.getKeyResolver();
		if (resolver == null) {
			return Mono.just(Optional.empty());
		}
		return Mono.defer(() -> resolver.resolve(exchange))
			.map(Optional::of)
			.defaultIfEmpty(Optional.empty())
			.onErrorResume((ex) -> {
				// a failing resolver must not fail the request: its key is missing (ratelimit.missing-key)
				logger.warn("The KeyResolver of the rate limit of route '" + routeId(exchange) + "' failed; treating"
						+ " the key as missing (ratelimit.missing-key): " + ex);
				return Mono.just(Optional.empty());
			});
	}

	private String routeId(ServerWebExchange exchange) {
		Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
		if (route != null) {
			return route.getId();
		}
		String routeId = this.config.getRouteId();
		if (routeId == null) {
			throw new IllegalArgumentException("A RateLimited filter outside a route has no route to be named after");
		}
		return routeId;
	}

}
