package dev.ratelimit.spring.gateway.webflux;

import java.util.List;

import dev.ratelimit.spring.gateway.RouteKeys;
import dev.ratelimit.spring.gateway.RouteLimit;
import dev.ratelimit.spring.gateway.RouteLimits;
import dev.ratelimit.spring.web.reactive.ExchangeErrorHandler;
import dev.ratelimit.spring.web.reactive.ReactiveEnforcer;
import org.jspecify.annotations.Nullable;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.support.HasRouteId;
import org.springframework.expression.Expression;

/**
 * The {@code RateLimited} route filter of Spring Cloud Gateway Server WebFlux: a rate or concurrency limit on a
 * route, decided before the request is proxied, answered as the starter answers every denial (429 with
 * {@code Retry-After}, the {@code RateLimit} fields and a problem body).
 *
 * <pre>
 * spring.cloud.gateway.server.webflux.routes:
 *   - id: api
 *     uri: http://backend
 *     predicates: [ "Path=/api/**" ]
 *     filters:
 *       - RateLimited=100, 1m, sliding-window-counter     # limit, window, algorithm
 *       - name: RateLimited                               # or every argument by name
 *         args: { name: api-keys, limit: 10, window: 1s, key: "#request.getHeader('X-Api-Key')" }
 * </pre>
 *
 * The arguments are those of {@link RouteLimit}, with {@code key-resolver} ({@code "#{@userKeyResolver}"}, a
 * {@link KeyResolver} bean) in place of {@code key}. From the Java DSL:
 * {@code f.filter(rateLimited.apply("api", (c) -> c.setLimit(100L)))}, or {@code apply(config)} on a route with an id.
 */
public class RateLimitedGatewayFilterFactory extends AbstractGatewayFilterFactory<RateLimitedGatewayFilterFactory.Config> {

	private final RouteLimits limits;

	private final ReactiveEnforcer decisions;

	private final ExchangeErrorHandler errors;

	public RateLimitedGatewayFilterFactory(RouteLimits limits, ReactiveEnforcer decisions, ExchangeErrorHandler errors) {
		super(Config.class);
		this.limits = limits;
		this.decisions = decisions;
		this.errors = errors;
	}

	@Override
	public List<String> shortcutFieldOrder() {
		return List.of("limit", "window", "algorithm");
	}

	/**
	 * @throws IllegalArgumentException naming the route when an argument is invalid (the route is then not built)
	 */
	@Override
	public GatewayFilter apply(Config config) {
		if (config.getKeyResolver() != null && config.getKey() != null) {
			throw new IllegalArgumentException("The rate limit of route '" + config.getRouteId() + "' has both a key"
					+ " and a key-resolver; give one");
		}
		Expression key = (config.getKeyResolver() != null) ? RouteKeys.RESOLVED : RouteKeys.parse(config.getKey());
		if (config.getRouteId() != null) {
			// a route of YAML or of the endpoint: checked as it is built; the Java DSL's at startup (RouteLimitsCheck)
			this.limits.check(config.getRouteId(), config, key);
		}
		return new RateLimitedGatewayFilter(config, key, this.limits, this.decisions, this.errors);
	}

	/** A route's limit, with the route's id and, in place of a key expression, a {@link KeyResolver}. */
	public static class Config extends RouteLimit implements HasRouteId {

		private @Nullable String routeId;

		private @Nullable KeyResolver keyResolver;

		@Override
		public void setRouteId(String routeId) {
			this.routeId = routeId;
		}

		@Override
		public @Nullable String getRouteId() {
			return this.routeId;
		}

		/** Resolves each request's client key; a key it leaves empty follows {@code ratelimit.missing-key}. */
		public @Nullable KeyResolver getKeyResolver() {
			return this.keyResolver;
		}

		public Config setKeyResolver(@Nullable KeyResolver keyResolver) {
			this.keyResolver = keyResolver;
			return this;
		}

	}

}
