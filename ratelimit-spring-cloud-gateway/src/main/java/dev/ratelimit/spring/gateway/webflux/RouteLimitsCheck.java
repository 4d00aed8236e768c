package dev.ratelimit.spring.gateway.webflux;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.ratelimit.spring.gateway.RouteLimits;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.OrderedGatewayFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.ApplicationListener;

/**
 * Checks the limit of every route the gateway has once the application is ready, and registers it (for the
 * {@code ratelimits} endpoint and the meters): the routes of the Java DSL are built without their ids reaching the
 * filter, so a limit without a name on a route with a random id (a budget per instance and restart) stops startup
 * here, with a message saying so.
 */
public final class RouteLimitsCheck implements ApplicationListener<ApplicationReadyEvent> {

	private final ObjectProvider<RouteLocator> routes;

	private final RouteLimits limits;

	public RouteLimitsCheck(ObjectProvider<RouteLocator> routes, RouteLimits limits) {
		this.routes = routes;
		this.limits = limits;
	}

	@Override
	public void onApplicationEvent(ApplicationReadyEvent event) {
		RouteLocator locator = this.routes.getIfAvailable();
		if (locator == null) {
			return;
		}
		List<Route> routes = locator.getRoutes().collectList().block(Duration.ofMinutes(1));
		if (routes == null) {
			return;
		}
		for (Route route : routes) {
			Set<String> names = new HashSet<>();
			for (GatewayFilter filter : route.getFilters()) {
				GatewayFilter own = (filter instanceof OrderedGatewayFilter ordered) ? ordered.getDelegate() : filter;
				if (own instanceof RateLimitedGatewayFilter limited) {
					this.limits.check(limited.route(route.getId()));
					String name = (limited.config().getName() != null) ? limited.config().getName() : route.getId();
					if (!names.add(name)) {
						throw new IllegalStateException("Route '" + route.getId() + "' has two RateLimited filters"
								+ " of the name '" + name + "' (a filter without a name is named after the route, and"
								+ " one may come from default-filters): each request would be charged twice. Give"
								+ " them distinct names");
					}
				}
			}
		}
	}

}
