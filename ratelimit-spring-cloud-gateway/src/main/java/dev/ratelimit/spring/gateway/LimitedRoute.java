package dev.ratelimit.spring.gateway;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;

/**
 * One filter's limit on one route, as each request of the route looks it up: the route's id, the limit with its
 * arguments read, its client key, and what tells it apart from the limits of other filters and routes, computed once
 * per filter and route rather than on every request ({@link RouteLimits#route}).
 */
public final class LimitedRoute {

	private final String routeId;

	private final RouteLimit limit;

	private final @Nullable Expression key;

	private final List<@Nullable Object> identity;

	LimitedRoute(String routeId, RouteLimit limit, @Nullable Expression key) {
		this.routeId = routeId;
		this.limit = limit;
		this.key = key;
		List<@Nullable Object> identity = new ArrayList<>();
		identity.add(routeId);
		identity.add(limit.getClass());
		identity.addAll(limit.values());
		this.identity = Collections.unmodifiableList(identity);
	}

	public String routeId() {
		return this.routeId;
	}

	/** The client key's expression ({@link RouteKeys}), {@code null} for the client's address. */
	public @Nullable Expression key() {
		return this.key;
	}

	RouteLimit limit() {
		return this.limit;
	}

	/** Equal for the same route and values: the key of the limits resolved in each configuration. */
	List<@Nullable Object> identity() {
		return this.identity;
	}

}
