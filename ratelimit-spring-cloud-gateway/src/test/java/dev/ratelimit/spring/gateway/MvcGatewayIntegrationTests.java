package dev.ratelimit.spring.gateway;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

import static dev.ratelimit.spring.gateway.mvc.RateLimitedFilterFunctions.rateLimited;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

/**
 * What only Gateway Server MVC has: its Java DSL (a {@code HandlerFilterFunction}, with a function of the request as
 * the key), and routes of its configuration checked at startup.
 */
class MvcGatewayIntegrationTests {

	private static final String ROUTES = "spring.cloud.gateway.server.webmvc.routes";

	static Backend backend;

	@BeforeAll
	static void start() throws Exception {
		backend = new Backend();
	}

	@AfterAll
	static void stop() {
		backend.close();
	}

	@Test
	void javaDslRoutesShareOneBudgetOverTwoInstancesKeyedByAFunctionOfTheRequest() throws Exception {
		try (Gateway one = Gateway.mvc(new Class<?>[] { GatewayTestApplication.class, DslRoutes.class });
				Gateway two = Gateway.mvc(new Class<?>[] { GatewayTestApplication.class, DslRoutes.class })) {
			assertThat(one.get("/mvc-dsl/x", "X-User", "ann").statusCode()).isEqualTo(200);
			HttpResponse<String> denied = two.get("/mvc-dsl/x", "X-User", "ann");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"mvc-dsl\";q=1;w=3600");
			assertThat(denied.body()).contains("\"violated-policies\":[\"mvc-dsl\"]");
			assertThat(two.get("/mvc-dsl/x", "X-User", "bob").statusCode()).isEqualTo(200);
			assertThat(backend.hits("mvc-dsl")).isEqualTo(2);
			// a key function that fails leaves the key missing (the client's address), never a 500
			assertThat(one.get("/mvc-failing/x").statusCode()).isEqualTo(200);
			assertThat(two.get("/mvc-failing/x").statusCode()).isEqualTo(429);
		}
	}

	@Test
	void aRouteWhoseLimitIsInvalidStopsStartupNamingIt() {
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.SERVLET, new Class<?>[] { GatewayTestApplication.class },
					ROUTES + "[0].id=broken", ROUTES + "[0].uri=" + backend.uri(),
					ROUTES + "[0].predicates[0]=Path=/broken/**", ROUTES + "[0].filters[0]=RateLimited=0, 1m"))
			.satisfies((ex) -> assertThat(ex)
				.hasStackTraceContaining("Invalid rate limit of route 'broken' (RateLimited) (limit): limit of rate"
						+ " limit 'broken' must be at least 1, but was 0"));
	}

	@Test
	void aRouteWhoseUsageIsNoPeriodStopsStartupNamingTheRouteAndTheArgument() {
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.SERVLET, new Class<?>[] { GatewayTestApplication.class },
					ROUTES + "[0].id=billed", ROUTES + "[0].uri=" + backend.uri(),
					ROUTES + "[0].predicates[0]=Path=/billed/**", ROUTES + "[0].filters[0].name=RateLimited",
					ROUTES + "[0].filters[0].args.limit=5", ROUTES + "[0].filters[0].args.usage=fortnight"))
			.satisfies((ex) -> assertThat(ex).hasStackTraceContaining("Invalid rate limit of route 'billed'"
					+ " (RateLimited) (usage): usage of rate limit 'billed' must be true, false or a calendar period"
					+ " ('month', 'day in Europe/Berlin', 'week from sunday'), but was 'fortnight'"));
	}

	@Test
	void aRouteArgumentValueOfTheWrongTypeStopsStartupNamingTheRouteTheArgumentAndTheValues() {
		// Gateway Server MVC's own binding would stop startup without naming the route, listing FIXED_WINDOW, ...
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.SERVLET, new Class<?>[] { GatewayTestApplication.class },
					ROUTES + "[0].id=leaky", ROUTES + "[0].uri=" + backend.uri(),
					ROUTES + "[0].predicates[0]=Path=/leaky/**", ROUTES + "[0].filters[0].name=RateLimited",
					ROUTES + "[0].filters[0].args.algorithm=leaky-bucket", ROUTES + "[0].filters[0].args.limit=5"))
			.satisfies((ex) -> assertThat(ex).hasStackTraceContaining("Invalid rate limit of route 'leaky'"
					+ " (RateLimited) (algorithm): 'leaky-bucket' is none of fixed-window, sliding-log,"
					+ " sliding-window-counter, token-bucket, concurrency"));
	}

	@Test
	void aMisspeltRouteArgumentStopsStartupNamingTheRouteAndTheArgumentsTheFilterTakes() {
		// Gateway Server MVC's own binding ignores it: the route would run at the default limit
		assertThatException()
			.isThrownBy(() -> Gateway.run(WebApplicationType.SERVLET, new Class<?>[] { GatewayTestApplication.class },
					ROUTES + "[0].id=typo", ROUTES + "[0].uri=" + backend.uri(),
					ROUTES + "[0].predicates[0]=Path=/typo/**", ROUTES + "[0].filters[0].name=RateLimited",
					ROUTES + "[0].filters[0].args.limt=5", ROUTES + "[0].filters[0].args.window=1h"))
			.satisfies((ex) -> assertThat(ex).hasStackTraceContaining("Invalid rate limit of route 'typo'"
					+ " (RateLimited): it has no argument 'limt' (the filter takes name, algorithm, limit, window,"
					+ " period, zone, first-day-of-week, capacity, cost, mode, failure-policy, usage, key)"));
	}

	@Test
	void theEndpointListsTheLimitsOfConfiguredRoutesFromStartup() throws Exception {
		try (Gateway gateway = Gateway.mvc(new Class<?>[] { GatewayTestApplication.class },
				ROUTES + "[0].id=listed", ROUTES + "[0].uri=" + backend.uri(),
				ROUTES + "[0].predicates[0]=Path=/listed/**", ROUTES + "[0].filters[0]=RateLimited=7, 1m")) {
			HttpResponse<String> listed = gateway.get("/actuator/ratelimits");
			assertThat(listed.statusCode()).isEqualTo(200);
			assertThat(listed.body()).contains("\"listed\"").contains("route 'listed' (RateLimited)");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class DslRoutes {

		@Bean
		RouterFunction<ServerResponse> dslRoutes() {
			return route("mvc-dsl").GET("/mvc-dsl/**", http())
				.before(uri(backend.uri()))
				.filter(rateLimited((c) -> c.setKeyResolver((request) -> request.headers().firstHeader("X-User"))
					.setLimit(1L)
					.setWindow(java.time.Duration.ofHours(1))))
				.build()
				.and(route("mvc-failing").GET("/mvc-failing/**", http())
					.before(uri(backend.uri()))
					.filter(rateLimited((c) -> c.setKeyResolver((request) -> {
						throw new IllegalStateException("the user service is down");
					}).setLimit(1L).setWindow(java.time.Duration.ofHours(1))))
					.build());
		}

	}

}
