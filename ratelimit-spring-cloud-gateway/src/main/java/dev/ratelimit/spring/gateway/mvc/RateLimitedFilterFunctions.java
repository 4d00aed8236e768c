package dev.ratelimit.spring.gateway.mvc;

import java.util.function.Consumer;
import java.util.function.Function;

import dev.ratelimit.spring.gateway.RouteKeys;
import dev.ratelimit.spring.gateway.RouteLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.cloud.gateway.server.mvc.common.Configurable;
import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
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
	 * @throws IllegalArgumentException when the key is invalid (the route is then not built)
	 */
	@Shortcut({ "limit", "window", "algorithm" })
	@Configurable
	public static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimited(Config config) {
		if (config.getKeyResolver() != null && config.getKey() != null) {
			throw new IllegalArgumentException("A RateLimited filter has both a key and a key resolver; give one");
		}
		Expression key = (config.getKeyResolver() != null) ? RouteKeys.RESOLVED : RouteKeys.parse(config.getKey());
		// the filter function is built without the context: the limiter is looked up on the first request
		MvcRouteLimiter.Lookup limiter = new MvcRouteLimiter.Lookup();
		String decided = RateLimitedFilterFunctions.class.getName() + "@" + System.identityHashCode(limiter);
		return (request, next) -> limiter.get(MvcUtils.getApplicationContext(request))
			.filter(request, next, config, key, decided);
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

		/** Resolves each request's client key; a key it leaves empty follows {@code ratelimit.missing-key}. */
		public @Nullable Function<ServerRequest, @Nullable String> getKeyResolver() {
			return this.keyResolver;
		}

		public Config setKeyResolver(@Nullable Function<ServerRequest, @Nullable String> keyResolver) {
			this.keyResolver = keyResolver;
			return this;
		}

	}

	/** Makes the filter known to Gateway Server MVC, which looks its filters up in beans of this type. */
	public static class FilterSupplier extends SimpleFilterSupplier {

		public FilterSupplier() {
			super(RateLimitedFilterFunctions.class);
		}

	}

}
