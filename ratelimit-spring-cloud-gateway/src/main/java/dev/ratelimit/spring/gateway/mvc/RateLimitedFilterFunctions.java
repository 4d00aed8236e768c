package dev.ratelimit.spring.gateway.mvc;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.ratelimit.spring.gateway.RouteLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.cloud.gateway.server.mvc.common.Configurable;
import org.springframework.cloud.gateway.server.mvc.common.Shortcut;
import org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier;
import org.springframework.expression.Expression;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The {@code RateLimited} route filter of Spring Cloud Gateway Server MVC: a rate or concurrency limit on a route,
 * decided before the request is proxied, answered as the starter answers every denial (429 with
 * {@code Retry-After}, the {@code RateLimit} fields and a problem body), a concurrency limit's lease held until the
 * proxied response is written.
 *
 * <pre>
 * spring.cloud.gateway.server.webmvc.routes:
 *   - id: api
 *     uri: http://backend
 *     predicates: [ "Path=/api/**" ]
 *     filters:
 *       - RateLimited=100, 1m, sliding-window-counter     # limit, window, algorithm
 * </pre>
 *
 * The arguments are those of {@link RouteLimit}. From the Java DSL: {@code route("api")...filter(rateLimited((c) ->
 * c.setLimit(100L)))}, where {@link Config#setKeyResolver} takes a function of the request as well. (Named to stay
 * clear of Bucket4j's {@code rateLimit}.)
 */
public abstract class RateLimitedFilterFunctions {

	private RateLimitedFilterFunctions() {
	}

	/**
	 * The filter of a route of {@code spring.cloud.gateway.server.webmvc.routes}, whose arguments the gateway binds to
	 * {@code config}, or of the Java DSL.
	 * @throws IllegalArgumentException when the key of a limit set in code is invalid (the route is then not built);
	 * a route's arguments are checked with its route, once the application is ready ({@link MvcRouteLimitsCheck})
	 */
	@Shortcut({ "limit", "window", "algorithm" })
	@Configurable
	public static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimited(Config config) {
		return new MvcRouteFilter(config);
	}

	/** The filter for the Java DSL. */
	public static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimited(Consumer<Config> configure) {
		Config config = new Config();
		configure.accept(config);
		return rateLimited(config);
	}

	/** A route's limit, with a function of the request in place of a key expression (Java DSL only). */
	public static class Config extends RouteLimit {

		private @Nullable Function<ServerRequest, @Nullable String> keyResolver;

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

		/** Resolves each request's client key; a key it leaves empty follows {@code ratelimit.missing-key}. */
		public @Nullable Function<ServerRequest, @Nullable String> getKeyResolver() {
			return this.keyResolver;
		}

		public Config setKeyResolver(@Nullable Function<ServerRequest, @Nullable String> keyResolver) {
			this.keyResolver = keyResolver;
			return this;
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

	/** Makes the filter known to Gateway Server MVC, which looks its filters up in beans of this type. */
	public static class FilterSupplier extends SimpleFilterSupplier {

		public FilterSupplier() {
			super(RateLimitedFilterFunctions.class);
		}

	}

}
