package dev.ratelimit.spring.gateway;

import java.util.List;
import java.util.regex.Pattern;

import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.LimitConfiguration;
import dev.ratelimit.spring.limits.LimitConfigurations;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.util.StringUtils;

/**
 * The starter's limits of route limits: each resolved once per configuration of the limits (so that overrides and
 * plans apply to it by name, and every change is checked against it), and registered with the configuration's names
 * (for the {@code ratelimits} endpoint and the meters) the first time it is resolved.
 */
public final class RouteLimits {

	/** The ids that Spring Cloud Gateway's Java DSL gives routes built without one ({@code randomId()}). */
	private static final Pattern RANDOM_ID = Pattern
		.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

	private final LimitConfigurations configurations;

	public RouteLimits(LimitConfigurations configurations) {
		this.configurations = configurations;
	}

	public LimitConfigurations configurations() {
		return this.configurations;
	}

	/**
	 * {@code limit} on the route {@code routeId}: its arguments read (where the gateway bound them), its key parsed.
	 * @throws IllegalArgumentException naming the route, the argument and the value when an argument is unknown or
	 * its value invalid, or the key is
	 */
	public LimitedRoute route(String routeId, RouteLimit limit) {
		limit.readArguments(routeId);
		return new LimitedRoute(routeId, limit, limit.keyExpression(source(routeId, limit)));
	}

	/**
	 * {@code limit} on the route {@code routeId}, whose key {@code key} is, already parsed.
	 * @throws IllegalArgumentException naming the route, the argument and the value when an argument is unknown or
	 * its value invalid
	 */
	public LimitedRoute route(String routeId, RouteLimit limit, @Nullable Expression key) {
		limit.readArguments(routeId);
		return new LimitedRoute(routeId, limit, key);
	}

	/**
	 * Checks the limit of {@code route} in the configuration in force, as the route is built, and registers it: an
	 * invalid limit stops the route (and at startup the application) rather than leave it unlimited.
	 * @throws IllegalArgumentException naming the route and the value
	 */
	public void check(LimitedRoute route) {
		resolve(this.configurations.current(), route);
	}

	/**
	 * The limits of {@code route} in {@code configuration}: the limit itself, or its shape in each plan when
	 * {@code ratelimit.plans} name it.
	 * @throws IllegalArgumentException naming the route when a value is invalid, or when the limit has no name and
	 * the route a random id
	 */
	public List<ConfiguredLimit> resolve(LimitConfiguration configuration, LimitedRoute route) {
		String routeId = route.routeId();
		RouteLimit limit = route.limit();
		try {
			return configuration.methodLimits(route.identity(), (each) -> List.of(each.names()
				.register(requireRateUnlessAllowed(limit, each.resolver()
					.fromRoute(limit, requireStableId(routeId, limit), source(routeId, limit), route.key())))));
		}
		catch (IllegalStateException ex) {
			// two limits of one name that cannot be one budget
			throw new IllegalArgumentException(ex.getMessage() + " (each RateLimited filter of a route without a"
					+ " name, its own and one of default-filters alike, is named after the route: name one of them)",
					ex);
		}
	}

	/**
	 * {@code resolved}, unless it is a concurrency limit (in some plan, or by an override) where {@code limit}
	 * cannot give a lease back: in every configuration, so that no override makes it one.
	 */
	private static ConfiguredLimit requireRateUnlessAllowed(RouteLimit limit, ConfiguredLimit resolved) {
		if (!limit.takesLeases() && (resolved.concurrency()
				|| resolved.byPlan().values().stream().anyMatch(ConfiguredLimit::concurrency))) {
			throw new IllegalArgumentException("The rate limit '" + resolved.name() + "' of " + resolved.source()
					+ " would be a concurrency limit, which " + limit.filterName() + " cannot give back when the"
					+ " request ends: use the RateLimited route filter for it");
		}
		return resolved;
	}

	/**
	 * How messages, the endpoint and the logs name a route's limit: the route and the filter, since a route's filters
	 * (its own, {@code default-filters}, a {@code RequestRateLimiter}) each name their limit after it.
	 */
	static String source(String routeId, RouteLimit limit) {
		return "route '" + routeId + "' (" + limit.filterName() + ")";
	}

	private static String requireStableId(String routeId, RouteLimit limit) {
		if (!StringUtils.hasText(limit.getName()) && RANDOM_ID.matcher(routeId).matches()) {
			throw new IllegalArgumentException("The rate limit of route '" + routeId + "' has no name, and the route"
					+ " a random id (a route of the Java DSL built without one): a limit named after it would be a"
					+ " budget per instance and per restart. Give the route an id (routes().route(\"api\", ...)), or"
					+ " the limit a name");
		}
		return routeId;
	}

}
