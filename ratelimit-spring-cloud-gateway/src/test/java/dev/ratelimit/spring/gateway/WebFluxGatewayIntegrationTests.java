package dev.ratelimit.spring.gateway;

import java.io.File;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.spring.gateway.webflux.RateLimitedGatewayFilterFactory;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.WebApplicationType;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.cloud.gateway.support.ipresolver.XForwardedRemoteAddressResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * What only Gateway Server WebFlux has: the gateway's {@code RequestRateLimiter} with the starter's
 * {@code RateLimiter} (beside the gateway's own {@code RedisRateLimiter}), a route filter keyed by a
 * {@code KeyResolver}, routes posted to the gateway's endpoint, the Java DSL, and the application's own bean named
 * {@code rateLimiter}.
 */
class WebFluxGatewayIntegrationTests {

	private static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

	static Backend backend;

	private static Gateway gateway;

	@BeforeAll
	static void start() throws Exception {
		backend = new Backend();
		List<String> properties = new ArrayList<>();
		route(properties, 0, "rrl", "/rrl/**", "name=RequestRateLimiter",
				"args.rate-limiter=#{@rateLimitGatewayRateLimiter}", "args.key-resolver=#{@userKeyResolver}",
				"args.redis-rate-limiter.replenishRate=1", "args.redis-rate-limiter.burstCapacity=3",
				"args.ratelimit.gateway-headers=true");
		route(properties, 1, "rrl-own", "/rrl-own/**", "name=RequestRateLimiter",
				"args.rate-limiter=#{@rateLimitGatewayRateLimiter}", "args.key-resolver=#{@userKeyResolver}",
				"args.ratelimit.algorithm=sliding-log", "args.ratelimit.limit=2", "args.ratelimit.window=1h");
		// the gateway's own limiter, which a route gets when it names none: still there, and still the default
		route(properties, 2, "gateways-own", "/gateways-own/**", "name=RequestRateLimiter",
				"args.key-resolver=#{@userKeyResolver}", "args.redis-rate-limiter.replenishRate=1",
				"args.redis-rate-limiter.burstCapacity=1");
		route(properties, 3, "resolver", "/resolver/**", "name=RateLimited", "args.key-resolver=#{@userKeyResolver}",
				"args.limit=1", "args.window=1h");
		route(properties, 4, "keyed", "/keyed/**", "name=RateLimited", "args.key=#request.getHeader('X-Api-Key')",
				"args.limit=1", "args.window=1h");
		route(properties, 6, "failing", "/failing/**", "name=RateLimited", "args.key-resolver=#{@failingKeyResolver}",
				"args.limit=1", "args.window=1h");
		// behind one trusted proxy (docs/GATEWAY.md): the address that proxy appended, whatever the client claims
		route(properties, 5, "proxied", "/proxied/**", "name=RateLimited", "args.key-resolver=#{@clientAddress}",
				"args.limit=1", "args.window=1h");
		properties.add("server.forward-headers-strategy=native");
		gateway = Gateway.webflux(new Class<?>[] { GatewayTestApplication.class, KeyResolvers.class },
				properties.toArray(String[]::new));
	}

	private static void route(List<String> properties, int index, String id, String path, String... filter) {
		String route = ROUTES + "[" + index + "]";
		properties.addAll(List.of(route + ".id=" + id, route + ".uri=" + backend.uri(),
				route + ".predicates[0]=Path=" + path));
		for (String part : filter) {
			properties.add(route + ".filters[0]." + part);
		}
	}

	@AfterAll
	static void stop() {
		if (gateway != null) {
			gateway.close();
		}
		backend.close();
	}

	@Test
	void requestRateLimiterWithTheStartersLimiterTakesTheGatewaysArgumentsAndAnswersWithRetryAfter()
			throws Exception {
		int hits = backend.hits("rrl");
		// a burst of 3, then 1 per second: requests faster than that are refused once the burst is spent (on a slow
		// machine a few more may be admitted first)
		HttpResponse<String> first = gateway.get("/rrl/a", "X-User", "ann");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
		HttpResponse<String> denied = firstDenied("/rrl/a", "ann");
		assertThat(denied.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"rrl\";q=1;w=1");
		assertThat(denied.headers().firstValue("RateLimit")).hasValue("\"rrl\";r=0;t=1");
		assertThat(denied.headers().map()).containsEntry("X-RateLimit-Remaining", List.of("0"))
			.containsEntry("X-RateLimit-Burst-Capacity", List.of("3"))
			.containsEntry("X-RateLimit-Replenish-Rate", List.of("1"))
			.containsEntry("X-RateLimit-Requested-Tokens", List.of("1"));
		int admitted = backend.hits("rrl") - hits;
		assertThat(admitted).isGreaterThanOrEqualTo(3);
		// another key, another budget
		assertThat(gateway.get("/rrl/a", "X-User", "bob").statusCode()).isEqualTo(200);
		// no key: the gateway's own answer (deny-empty-key, 403), the limiter not asked
		assertThat(gateway.get("/rrl/a").statusCode()).isEqualTo(403);
		assertThat(backend.hits("rrl") - hits).isEqualTo(admitted + 1);
	}

	/** The first 429 for {@code user} on {@code path}, within 20 requests. */
	private static HttpResponse<String> firstDenied(String path, String user) throws Exception {
		for (int n = 0; n < 20; n++) {
			HttpResponse<String> response = gateway.get(path, "X-User", user);
			if (response.statusCode() != 200) {
				assertThat(response.statusCode()).isEqualTo(429);
				return response;
			}
		}
		throw new AssertionError("no 429 in 20 requests to " + path);
	}

	@Test
	void requestRateLimiterWithTheStartersLimiterTakesAnyOfItsAlgorithms() throws Exception {
		assertThat(gateway.get("/rrl-own/a", "X-User", "ann").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/rrl-own/a", "X-User", "ann").statusCode()).isEqualTo(200);
		HttpResponse<String> denied = gateway.get("/rrl-own/a", "X-User", "ann");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"rrl-own\";q=2;w=3600");
		assertThat(denied.headers().firstValue("Retry-After")).isPresent();
		assertThat(backend.hits("rrl-own")).isEqualTo(2);
	}

	@Test
	void theGatewaysOwnRedisRateLimiterStaysTheDefault() throws Exception {
		assertThat(gateway.context().getBeansOfType(RateLimiter.class)).containsKey("redisRateLimiter");
		HttpResponse<String> denied = firstDenied("/gateways-own/a", "ann");
		// RedisRateLimiter's answer: none of the starter's fields
		assertThat(denied.headers().firstValue("X-RateLimit-Replenish-Rate")).hasValue("1");
		assertThat(denied.headers().firstValue("Retry-After")).isEmpty();
		assertThat(denied.headers().firstValue("RateLimit-Policy")).isEmpty();
	}

	@Test
	void aRouteFilterTakesItsKeyFromAKeyResolverAndAMissingKeyFallsBackToTheClientsAddress() throws Exception {
		int resolverHits = backend.hits("resolver");
		int keyedHits = backend.hits("keyed");
		assertThat(gateway.get("/resolver/a", "X-User", "ann").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/resolver/a", "X-User", "ann").statusCode()).isEqualTo(429);
		assertThat(gateway.get("/resolver/a", "X-User", "bob").statusCode()).isEqualTo(200);
		// ratelimit.missing-key=client-ip (the default): without the header, the client's address is the key
		assertThat(gateway.get("/keyed/a").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/keyed/a").statusCode()).isEqualTo(429);
		assertThat(gateway.get("/keyed/a", "X-Api-Key", "k-1").statusCode()).isEqualTo(200);
		assertThat(backend.hits("resolver") - resolverHits).isEqualTo(2);
		assertThat(backend.hits("keyed") - keyedHits).isEqualTo(2);
	}

	@Test
	void aRoutePostedWithAKeyThatWouldRunCodeRunsNothing() throws Exception {
		File marker = new File(System.getProperty("java.io.tmpdir"), "ratelimit-gateway-" + ProcessHandle.current().pid());
		marker.delete();
		String exec = "getRuntime().exec('touch " + marker.getAbsolutePath() + "')";
		// a type reference: the filter refuses the route as it is built (and the gateway keeps the routes it had)
		assertThat(postRoute("evil", "/evil/**", "T(java.lang.Runtime)." + exec).statusCode()).isEqualTo(201);
		gateway.send("POST", "/actuator/gateway/refresh", "");
		assertThat(gateway.get("/evil/x").statusCode()).isEqualTo(404);
		assertThat(gateway.get("/resolver/evil", "X-User", "evil").statusCode()).isEqualTo(200);
		assertThat(gateway.send("DELETE", "/actuator/gateway/routes/evil", "").statusCode()).isEqualTo(200);
		// reaching a type through an object passes the parse, and fails in the restricted context: the key is
		// missing, and the client's address is the key
		assertThat(postRoute("sly", "/sly/**", "#request.getClass().forName('java.lang.Runtime')." + exec)
			.statusCode()).isEqualTo(201);
		gateway.send("POST", "/actuator/gateway/refresh", "");
		assertThat(gateway.get("/sly/x").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/sly/x").statusCode()).isEqualTo(429);
		assertThat(marker).doesNotExist();
		assertThat(backend.hits("evil")).isZero();
	}

	private HttpResponse<String> postRoute(String id, String path, String key) throws Exception {
		String json = "{\"id\":\"" + id + "\",\"uri\":\"" + backend.uri() + "\",\"predicates\":[{\"name\":\"Path\","
				+ "\"args\":{\"_genkey_0\":\"" + path + "\"}}],\"filters\":[{\"name\":\"RateLimited\",\"args\":"
				+ "{\"limit\":\"1\",\"window\":\"1h\",\"key\":\"" + key.replace("\"", "\\\"") + "\"}}]}";
		return gateway.send("POST", "/actuator/gateway/routes/" + id, json);
	}

	@Test
	void behindATrustedProxyTheAddressItAppendedIsTheKeyWhateverTheClientForged() throws Exception {
		assertThat(gateway.get("/proxied/x", "X-Forwarded-For", "198.51.100.1, 10.0.0.7").statusCode())
			.isEqualTo(200);
		assertThat(gateway.get("/proxied/x", "X-Forwarded-For", "198.51.100.2, 10.0.0.7").statusCode())
			.isEqualTo(429);
		assertThat(gateway.get("/proxied/x", "X-Forwarded-For", "10.0.0.8").statusCode()).isEqualTo(200);
		assertThat(backend.hits("proxied")).isEqualTo(2);
	}

	@Test
	void aKeyResolverThatFailsLeavesTheKeyMissingNeverA500() throws Exception {
		assertThat(gateway.get("/failing/x").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/failing/x").statusCode()).isEqualTo(429);
		assertThat(backend.hits("failing")).isEqualTo(1);
	}

	@Test
	void routeLimitsHaveTheirMeters() throws Exception {
		gateway.get("/resolver/meters", "X-User", "meters");
		gateway.get("/resolver/meters", "X-User", "meters");
		MeterRegistry meters = gateway.context().getBean(MeterRegistry.class);
		assertThat(meters.get("ratelimit.decisions").tag("limit", "resolver").tag("outcome", "denied").counter()
			.count()).isGreaterThanOrEqualTo(1);
	}

	@Test
	void theEndpointListsRouteLimitsAndChangesThemOnEveryInstance() throws Exception {
		HttpResponse<String> listed = gateway.get("/actuator/ratelimits");
		assertThat(listed.statusCode()).isEqualTo(200);
		assertThat(listed.body()).contains("\"resolver\"").contains("route 'resolver'").contains("\"rrl\"");
		// a RequestRateLimiter with the gateway's own RedisRateLimiter is none of the starter's limits
		assertThat(listed.body()).doesNotContain("gateways-own");
		// no override makes a RequestRateLimiter's limit one that would never give its leases back
		HttpResponse<String> refused = gateway.send("POST", "/actuator/ratelimits/rrl-own",
				"{\"algorithm\": \"concurrency\"}");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(refused.body()).contains("concurrency limit");
		assertThat(gateway.send("POST", "/actuator/ratelimits/keyed", "{\"limit\": 3}").statusCode())
			.isEqualTo(200);
		try {
			for (int n = 0; n < 3; n++) {
				assertThat(gateway.get("/keyed/b", "X-Api-Key", "k-override").statusCode()).isEqualTo(200);
			}
			HttpResponse<String> denied = gateway.get("/keyed/b", "X-Api-Key", "k-override");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"keyed\";q=3;w=3600");
		}
		finally {
			gateway.send("POST", "/actuator/ratelimits/keyed", "{\"undo\": true}");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class KeyResolvers {

		/** The gateway's RequestRateLimiter takes one KeyResolver by type: with two, the application marks one. */
		@Bean
		@Primary
		KeyResolver userKeyResolver() {
			return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
		}

		@Bean
		KeyResolver failingKeyResolver() {
			return (exchange) -> Mono.error(new IllegalStateException("the user service is down"));
		}

		@Bean
		KeyResolver clientAddress() {
			XForwardedRemoteAddressResolver addresses = XForwardedRemoteAddressResolver.maxTrustedIndex(1);
			return (exchange) -> Mono.just(addresses.resolve(exchange).getAddress().getHostAddress());
		}

	}

}
