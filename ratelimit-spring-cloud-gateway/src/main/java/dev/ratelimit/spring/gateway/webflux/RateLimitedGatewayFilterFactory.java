package dev.ratelimit.spring.gateway.webflux;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.ratelimit.spring.gateway.LimitedRoute;
import dev.ratelimit.spring.gateway.RouteLimit;
import dev.ratelimit.spring.gateway.RouteLimits;
import dev.ratelimit.spring.web.reactive.ExchangeErrorHandler;
import dev.ratelimit.spring.web.reactive.ReactiveEnforcer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.Name;
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
		return RouteLimit.SHORTCUT;
	}

	/**
	 * @throws IllegalArgumentException naming the route, the argument and the value when an argument is unknown or
	 * invalid (the route is then not built)
	 */
	@Override
	public GatewayFilter apply(Config config) {
		String routeId = config.getRouteId();
		if (routeId == null) {
			// the Java DSL's apply(config): its route is known on the first request, and checked once the application
			// is ready (RouteLimitsCheck)
			return new RateLimitedGatewayFilter(config, config.keyExpression(), null, this.limits, this.decisions,
					this.errors);
		}
		// a route of YAML, default-filters or the endpoint: its arguments read and checked as it is built
		LimitedRoute route = this.limits.route(routeId, config);
		this.limits.check(route);
		return new RateLimitedGatewayFilter(config, route.key(), route, this.limits, this.decisions, this.errors);
	}

	/** A route's limit, with the route's id and, in place of a key expression, a {@link KeyResolver}. */
	public static class Config extends RouteLimit implements HasRouteId {

		private static final List<String> WITH_KEY_RESOLVER = Stream
			.concat(ARGUMENTS.stream(), Stream.of("key-resolver"))
			.toList();

		private @Nullable String routeId;

		private @Nullable KeyResolver keyResolver;

		/** A limit whose values are set in code (the Java DSL). */
		public Config() {
		}

		/**
		 * The arguments of a route's definition, as the gateway binds them: all of them, as written, read once the
		 * route is known (bound to this class's properties, they would fail without naming the route, or be ignored).
		 */
		@ConstructorBinding
		Config(@Name("") @Nullable Map<String, @Nullable Object> arguments) {
			super(arguments);
		}

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

		@Override
		protected List<String> argumentNames() {
			return WITH_KEY_RESOLVER;
		}

		@Override
		protected boolean resolvesKey() {
			return this.keyResolver != null;
		}

		/** The key of a limit set in code, before its route is known. */
		@Nullable Expression keyExpression() {
			return keyExpression("a RateLimited filter of the Java DSL");
		}

	}

}
