package dev.ratelimit.spring.gateway.mvc;

import dev.ratelimit.spring.gateway.LimitedRoute;
import dev.ratelimit.spring.gateway.RouteLimits;
import org.jspecify.annotations.Nullable;

import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * One {@code RateLimited} filter of Gateway Server MVC. The gateway builds a filter without its application context or
 * its route, so the limiter is looked up on the route's first request, and the limit on the route computed then (its
 * arguments read, its key parsed), once rather than on every request.
 */
final class MvcRouteFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {

	private final RateLimitedFilterFunctions.Config config;

	/** The request attribute that says this filter has decided the request. */
	private final String decided = MvcRouteFilter.class.getName() + "@" + System.identityHashCode(this);

	private volatile @Nullable MvcRouteLimiter limiter;

	/** The limit on the route of the last request: one route, unless the Java DSL put this filter on several. */
	private volatile @Nullable LimitedRoute route;

	/**
	 * @throws IllegalArgumentException when the key of a limit set in code is invalid (the route is then not built)
	 */
	MvcRouteFilter(RateLimitedFilterFunctions.Config config) {
		this.config = config;
		// a limit set in code: its key checked as the route is built; a route's arguments are read with its route
		config.keyExpression();
	}

	@Override
	public ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
		MvcRouteLimiter limiter = this.limiter;
		if (limiter == null) {
			limiter = MvcUtils.getApplicationContext(request).getBean(MvcRouteLimiter.class);
			this.limiter = limiter;
		}
		return limiter.filter(request, next, this);
	}

	RateLimitedFilterFunctions.Config config() {
		return this.config;
	}

	String decided() {
		return this.decided;
	}

	/**
	 * The limit on {@code routeId}, computed once per route.
	 * @throws IllegalArgumentException naming the route, the argument and the value when an argument is invalid
	 */
	LimitedRoute route(String routeId, RouteLimits limits) {
		LimitedRoute route = this.route;
		if (route == null || !route.routeId().equals(routeId)) {
			route = limits.route(routeId, this.config);
			this.route = route;
		}
		return route;
	}

}
