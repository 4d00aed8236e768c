package dev.ratelimit.spring.gateway.mvc;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.spring.gateway.RouteLimit;
import dev.ratelimit.spring.gateway.RouteLimits;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.cloud.gateway.server.mvc.config.FilterProperties;
import org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties;
import org.springframework.cloud.gateway.server.mvc.config.RouteProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Checks the limit of every route of {@code spring.cloud.gateway.server.webmvc.routes} (and {@code routes-map}) once
 * the application is ready, and registers it (for the {@code ratelimits} endpoint and the meters): Gateway Server MVC
 * builds a route's filter without telling it the route, so an argument the filter does not know, a value not of its
 * argument's type, or a limit invalid in the starter's terms (a negative limit, a cost its share can never take, a
 * name another limit uses with another shape) stops startup here, naming the route, rather than answer its requests
 * with 503. Routes of the Java DSL are checked on their first request.
 */
public final class MvcRouteLimitsCheck implements ApplicationListener<ApplicationReadyEvent> {

	private final Environment environment;

	private final RouteLimits limits;

	public MvcRouteLimitsCheck(Environment environment, RouteLimits limits) {
		this.environment = environment;
		this.limits = limits;
	}

	@Override
	public void onApplicationEvent(ApplicationReadyEvent event) {
		GatewayMvcProperties gateway = Binder.get(this.environment)
			.bindOrCreate(GatewayMvcProperties.PREFIX, GatewayMvcProperties.class);
		gateway.getRoutes().forEach((route) -> check(route.getId(), route));
		gateway.getRoutesMap().forEach((id, route) -> check(StringUtils.hasText(route.getId()) ? route.getId() : id,
				route));
	}

	private void check(@Nullable String routeId, RouteProperties route) {
		if (routeId == null) {
			// the gateway refuses such a route itself ("Route id is required")
			return;
		}
		for (FilterProperties filter : route.getFilters()) {
			String filterName = filter.getName();
			if (filterName == null || !"rateLimited".equals(StringUtils.uncapitalize(filterName))) {
				continue;
			}
			Map<String, Object> args = new LinkedHashMap<>();
			int position = 0;
			for (Map.Entry<String, String> arg : filter.getArgs().entrySet()) {
				String name = (arg.getKey().startsWith("_genkey_") && position < RouteLimit.SHORTCUT.size())
						? RouteLimit.SHORTCUT.get(position) : arg.getKey();
				args.put(name, arg.getValue());
				position++;
			}
			// bound as the gateway binds them, then read with the route
			RateLimitedFilterFunctions.Config config = new Binder(new MapConfigurationPropertySource(args))
				.bindOrCreate("", Bindable.of(RateLimitedFilterFunctions.Config.class));
			this.limits.check(this.limits.route(routeId, config));
		}
	}

}
