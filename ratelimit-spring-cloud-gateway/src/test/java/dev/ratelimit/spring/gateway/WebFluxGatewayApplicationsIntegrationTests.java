package dev.ratelimit.spring.gateway;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.spring.gateway.webflux.RateLimitedGatewayFilterFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.WebApplicationType;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Gateway Server WebFlux applications of their own, each started and closed by its test: {@code default-filters},
 * the Java DSL over two instances, a route with a random id, and the application's own bean named
 * {@code rateLimiter}.
 */
class WebFluxGatewayApplicationsIntegrationTests {

	private static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

	static Backend backend;

	@BeforeAll
	static void start() throws Exception {
		backend = new Backend();
	}

	@AfterAll
	static void stop() {
		backend.close();
	}

	private static void route(List<String> properties, int index, String id, String path, String... filter) {
		String route = ROUTES + "[" + index + "]";
		properties.addAll(List.of(route + ".id=" + id, route + ".uri=" + backend.uri(),
				route + ".predicates[0]=Path=" + path));
		for (String part : filter) {
			properties.add(route + ".filters[0]." + part);
		}
	}

	@Test
	void aLimitInDefaultFiltersIsABudgetPerRouteUnlessNamed() throws Exception {
		List<String> properties = new ArrayList<>();
		properties.add("spring.cloud.gateway.server.webflux.default-filters[0]=RateLimited=2, 1h");
		properties.add("spring.cloud.gateway.server.webflux.default-filters[1].name=RateLimited");
		properties.add("spring.cloud.gateway.server.webflux.default-filters[1].args.name=all-routes");
		properties.add("spring.cloud.gateway.server.webflux.default-filters[1].args.limit=3");
		properties.add("spring.cloud.gateway.server.webflux.default-filters[1].args.window=1h");
		route(properties, 0, "defaults-a", "/defaults-a/**");
		route(properties, 1, "defaults-b", "/defaults-b/**");
		try (Gateway defaults = Gateway.webflux(new Class<?>[] { GatewayTestApplication.class },
				properties.toArray(String[]::new))) {
			assertThat(defaults.get("/defaults-a/x").statusCode()).isEqualTo(200);
			assertThat(defaults.get("/defaults-a/x").statusCode()).isEqualTo(200);
			// the unnamed one: a budget per route, named after it
			HttpResponse<String> perRoute = defaults.get("/defaults-a/x");
			assertThat(perRoute.statusCode()).isEqualTo(429);
			assertThat(perRoute.headers().firstValue("RateLimit-Policy")).hasValue("\"defaults-a\";q=2;w=3600");
			// the named one: one budget over every route, whose third unit goes to another route
			assertThat(defaults.get("/defaults-b/x").statusCode()).isEqualTo(200);
			HttpResponse<String> shared = defaults.get("/defaults-b/x");
			assertThat(shared.statusCode()).isEqualTo(429);
			assertThat(shared.headers().firstValue("RateLimit")).hasValueSatisfying(
					(states) -> assertThat(states).contains("\"all-routes\";r=0"));
		}
	}

	@Test
	void javaDslRoutesWithAStableIdShareOneBudgetOverTwoInstances() {
		try (Gateway one = Gateway.webflux(new Class<?>[] { GatewayTestApplication.class, DslRoutes.class });
				Gateway two = Gateway.webflux(new Class<?>[] { GatewayTestApplication.class, DslRoutes.class })) {
			assertThat(one.get("/dsl/x").statusCode()).isEqualTo(200);
			assertThat(two.get("/dsl/x").statusCode()).isEqualTo(429);
			assertThat(one.get("/dsl/x").statusCode()).isEqualTo(429);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void aJavaDslRouteWithARandomIdAndAnUnnamedLimitStopsStartup() {
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.REACTIVE,
					new Class<?>[] { GatewayTestApplication.class, RandomIdRoutes.class }))
			.satisfies((ex) -> assertThat(NestedExceptionUtils.getMostSpecificCause(ex))
				.hasMessageContaining("a random id")
				.hasMessageContaining("Give the route an id"));
	}

	@Test
	void aRouteWithTwoUnnamedLimitsOneFromDefaultFiltersStopsStartup() {
		List<String> properties = new ArrayList<>();
		properties.add("spring.cloud.gateway.server.webflux.default-filters[0]=RateLimited=4, 1h");
		properties.add(ROUTES + "[0].id=twice");
		properties.add(ROUTES + "[0].uri=" + backend.uri());
		properties.add(ROUTES + "[0].predicates[0]=Path=/twice/**");
		properties.add(ROUTES + "[0].filters[0]=RateLimited=4, 1h");
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.REACTIVE, new Class<?>[] { GatewayTestApplication.class },
					properties.toArray(String[]::new)))
			.satisfies((ex) -> assertThat(ex).hasStackTraceContaining(
					"Route 'twice' has two RateLimited filters of the name 'twice'"));
	}

	@Test
	void aRouteArgumentValueOfTheWrongTypeStopsStartupNamingTheRouteTheArgumentAndTheValues() {
		// the gateway's own binding would stop startup without naming the route, listing FIXED_WINDOW, ...
		List<String> properties = new ArrayList<>();
		route(properties, 0, "leaky", "/leaky/**", "name=RateLimited", "args.algorithm=leaky-bucket", "args.limit=5");
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.REACTIVE, new Class<?>[] { GatewayTestApplication.class },
					properties.toArray(String[]::new)))
			.satisfies((ex) -> assertThat(ex).hasStackTraceContaining("Invalid rate limit of route 'leaky'"
					+ " (RateLimited) (algorithm): 'leaky-bucket' is none of fixed-window, sliding-log,"
					+ " sliding-window-counter, token-bucket, concurrency"));
	}

	@Test
	void aRouteWhoseUsageIsNoPeriodStopsStartupNamingTheRouteAndTheArgument() {
		List<String> properties = new ArrayList<>();
		route(properties, 0, "billed", "/billed/**", "name=RateLimited", "args.limit=5", "args.usage=fortnight");
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.REACTIVE, new Class<?>[] { GatewayTestApplication.class },
					properties.toArray(String[]::new)))
			.satisfies((ex) -> assertThat(ex).hasStackTraceContaining("Invalid rate limit of route 'billed'"
					+ " (RateLimited) (usage): usage of rate limit 'billed' must be true, false or a calendar period"
					+ " ('month', 'day in Europe/Berlin', 'week from sunday'), but was 'fortnight'"));
	}

	@Test
	void aMisspeltRouteArgumentStopsStartupNamingTheRouteAndTheArgumentsTheFilterTakes() {
		// the gateway's own binding ignores it: the route would run at the default limit
		List<String> properties = new ArrayList<>();
		route(properties, 0, "typo", "/typo/**", "name=RateLimited", "args.limt=5", "args.window=1h");
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.REACTIVE, new Class<?>[] { GatewayTestApplication.class },
					properties.toArray(String[]::new)))
			.satisfies((ex) -> assertThat(ex).hasStackTraceContaining("Invalid rate limit of route 'typo'"
					+ " (RateLimited): it has no argument 'limt' (the filter takes name, algorithm, limit, window,"
					+ " period, zone, first-day-of-week, capacity, cost, mode, failure-policy, usage, key, key-resolver)"));
	}

	@Test
	void anApplicationBeanNamedRateLimiterSurvivesTheStarter() throws Exception {
		try (Gateway own = Gateway.webflux(new Class<?>[] { GatewayTestApplication.class, WebFluxGatewayIntegrationTests.KeyResolvers.class,
				OwnRateLimiter.class }, ROUTES + "[0].id=own", ROUTES + "[0].uri=" + backend.uri(),
				ROUTES + "[0].predicates[0]=Path=/own/**", ROUTES + "[0].filters[0].name=RequestRateLimiter",
				ROUTES + "[0].filters[0].args.key-resolver=#{@userKeyResolver}")) {
			assertThat(own.context().getBean("rateLimiter")).isInstanceOf(DenyAll.class);
			HttpResponse<String> denied = own.get("/own/x", "X-User", "ann");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(denied.headers().firstValue("X-App-Limiter")).hasValue("denied");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class DslRoutes {

		@Bean
		RouteLocator dslRoutes(RouteLocatorBuilder routes, RateLimitedGatewayFilterFactory rateLimited) {
			return routes.routes()
				.route("dsl", (r) -> r.path("/dsl/**")
					.filters((f) -> f.filter(rateLimited.apply((c) -> c.setLimit(1L).setWindow(java.time.Duration.ofHours(1)))))
					.uri(backend.uri()))
				.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RandomIdRoutes {

		@Bean
		RouteLocator randomIdRoutes(RouteLocatorBuilder routes, RateLimitedGatewayFilterFactory rateLimited) {
			return routes.routes()
				.route((r) -> r.path("/random/**")
					.filters((f) -> f.filter(rateLimited.apply((c) -> c.setLimit(1L))))
					.uri(backend.uri()))
				.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRateLimiter {

		/** The application's own limiter, under the name applications give theirs. */
		@Bean
		@Primary
		DenyAll rateLimiter() {
			return new DenyAll();
		}

	}

	static class DenyAll implements RateLimiter<Object> {

		@Override
		public Mono<Response> isAllowed(String routeId, String id) {
			return Mono.just(new Response(false, Map.of("X-App-Limiter", "denied")));
		}

		@Override
		public Map<String, Object> getConfig() {
			return Map.of();
		}

		@Override
		public Class<Object> getConfigClass() {
			return Object.class;
		}

		@Override
		public Object newConfig() {
			return new Object();
		}

	}

}
