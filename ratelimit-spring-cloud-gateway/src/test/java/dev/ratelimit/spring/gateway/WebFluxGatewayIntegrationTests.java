package dev.ratelimit.spring.gateway;

import java.io.File;
import java.net.http.HttpResponse;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.spring.gateway.webflux.RateLimitedGatewayFilterFactory;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.WebApplicationType;
import org.springframework.cloud.gateway.event.RefreshRoutesResultEvent;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.cloud.gateway.support.ipresolver.XForwardedRemoteAddressResolver;
import org.springframework.context.ApplicationListener;
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
		// a daily quota in a time zone, as RequestRateLimiter's arguments of the starter's limiter
		route(properties, 7, "rrl-daily", "/rrl-daily/**", "name=RequestRateLimiter",
				"args.rate-limiter=#{@rateLimitGatewayRateLimiter}", "args.key-resolver=#{@userKeyResolver}",
				"args.ratelimit.limit=1", "args.ratelimit.period=day", "args.ratelimit.zone=Europe/Berlin");
		// usage per month in Berlin, as RequestRateLimiter's argument of the starter's limiter
		route(properties, 8, "rrl-metered", "/rrl-metered/**", "name=RequestRateLimiter",
				"args.rate-limiter=#{@rateLimitGatewayRateLimiter}", "args.key-resolver=#{@userKeyResolver}",
				"args.ratelimit.limit=1", "args.ratelimit.window=1h", "args.ratelimit.usage=month in Europe/Berlin");
		properties.add("server.forward-headers-strategy=native");
		gateway = Gateway.webflux(new Class<?>[] { GatewayTestApplication.class, KeyResolvers.class,
				RefreshErrors.class }, properties.toArray(String[]::new));
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
	void requestRateLimiterWithTheStartersLimiterTakesACalendarPeriod() throws Exception {
		ZoneId berlin = ZoneId.of("Europe/Berlin");
		long before = RouteFilterContract.secondsToMidnight(berlin);
		assertThat(gateway.get("/rrl-daily/a", "X-User", "ann").statusCode()).isEqualTo(200);
		HttpResponse<String> denied = gateway.get("/rrl-daily/a", "X-User", "ann");
		long after = RouteFilterContract.secondsToMidnight(berlin);
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"rrl-daily\";q=1;w=86400");
		// to midnight in Berlin (a few seconds of margin for Redis' clock and a loaded machine)
		assertThat(Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow()))
			.isBetween(Math.min(before, after) - 5, Math.max(before, after) + 5);
		assertThat(backend.hits("rrl-daily")).isEqualTo(1);
	}

	@Test
	void requestRateLimiterWithTheStartersLimiterRecordsUsage() throws Exception {
		assertThat(gateway.get("/rrl-metered/a", "X-User", "ann").statusCode()).isEqualTo(200);
		assertThat(gateway.get("/rrl-metered/a", "X-User", "ann").statusCode()).isEqualTo(429);
		HttpResponse<String> usage = gateway.get("/actuator/ratelimits/rrl-metered/usage");
		assertThat(usage.statusCode()).as(usage.body()).isEqualTo(200);
		// the month's first midnight in Berlin, in UTC: 23:00 or 22:00 the day before
		assertThat(JsonPath.<String>read(usage.body(), "$.periodStart")).matches(".*T2[23]:00:00Z");
		assertThat(JsonPath.<List<Object>>read(usage.body(), "$.entries[*].client")).containsExactly("key:ann");
		assertThat(JsonPath.<List<Object>>read(usage.body(), "$.entries[*].units")).containsExactly(1);
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
	void aRoutePostedWithAnInvalidArgumentIsRefusedNamingItWhileTheRefreshAnswers200() throws Exception {
		assertThat(refused("leaky", "{\"name\":\"RateLimited\",\"args\":{\"algorithm\":\"leaky-bucket\","
				+ "\"limit\":\"1\"}}")).isEqualTo("Invalid rate limit of route 'leaky' (RateLimited) (algorithm):"
						+ " 'leaky-bucket' is none of fixed-window, sliding-log, sliding-window-counter, token-bucket,"
						+ " concurrency");
		assertThat(refused("typo", "{\"name\":\"RateLimited\",\"args\":{\"limt\":\"1\",\"window\":\"1h\"}}"))
			.isEqualTo("Invalid rate limit of route 'typo' (RateLimited): it has no argument 'limt' (the filter takes"
					+ " name, algorithm, limit, window, period, zone, first-day-of-week, capacity, cost, mode,"
					+ " failure-policy, usage, key, key-resolver)");
	}

	@Test
	void requestRateLimiterArgumentsOfTheStartersLimiterAreCheckedNamingTheRoute() throws Exception {
		String limiter = "{\"name\":\"RequestRateLimiter\",\"args\":{\"rate-limiter\":"
				+ "\"#{@rateLimitGatewayRateLimiter}\",\"key-resolver\":\"#{@userKeyResolver}\",";
		assertThat(refused("rrl-leaky", limiter + "\"ratelimit.algorithm\":\"leaky-bucket\"}}"))
			.isEqualTo("Invalid rate limit of route 'rrl-leaky' (RequestRateLimiter) (ratelimit.algorithm):"
					+ " 'leaky-bucket' is none of fixed-window, sliding-log, sliding-window-counter, token-bucket,"
					+ " concurrency");
		// (a misspelt redis-rate-limiter.* argument the gateway's own RedisRateLimiter refuses, where there is one)
		assertThat(refused("rrl-typo", limiter + "\"ratelimit.limt\":\"1\"}}"))
			.isEqualTo("Invalid rate limit of route 'rrl-typo' (RequestRateLimiter): it has no argument"
					+ " 'ratelimit.limt' (the filter takes ratelimit.name, ratelimit.algorithm, ratelimit.limit,"
					+ " ratelimit.window, ratelimit.period, ratelimit.zone, ratelimit.first-day-of-week,"
					+ " ratelimit.capacity, ratelimit.cost, ratelimit.mode, ratelimit.failure-policy, ratelimit.usage,"
					+ " ratelimit.gateway-headers, redis-rate-limiter.replenishRate, redis-rate-limiter.burstCapacity,"
					+ " redis-rate-limiter.requestedTokens)");
	}

	@Test
	void aRoutePostedWithAUsageThatIsNoPeriodIsRefusedNamingTheArgument() throws Exception {
		assertThat(refused("billed", "{\"name\":\"RateLimited\",\"args\":{\"usage\":\"fortnight\"}}"))
			.startsWith("Invalid rate limit of route 'billed' (RateLimited) (usage): usage of rate limit 'billed' must"
					+ " be true, false or a calendar period");
		// a concurrency limit records none
		assertThat(refused("billed-leases", "{\"name\":\"RateLimited\",\"args\":{\"algorithm\":\"concurrency\","
				+ "\"usage\":\"true\"}}"))
			.startsWith("Invalid rate limit of route 'billed-leases' (RateLimited) (usage): ");
	}

	@Test
	void aCalendarPeriodGoesWithAFixedWindowAndNoWindowAsInTheStartersRules() throws Exception {
		assertThat(refused("period-log", "{\"name\":\"RateLimited\",\"args\":{\"period\":\"day\","
				+ "\"algorithm\":\"sliding-log\"}}"))
			.startsWith("Invalid rate limit of route 'period-log' (RateLimited) (period): ")
			.contains("not sliding-log");
		assertThat(refused("period-window", "{\"name\":\"RateLimited\",\"args\":{\"period\":\"day\","
				+ "\"window\":\"1h\"}}"))
			.startsWith("Invalid rate limit of route 'period-window' (RateLimited) (period): ")
			.contains("a window or a calendar period, not both");
		assertThat(refused("zone-alone", "{\"name\":\"RateLimited\",\"args\":{\"zone\":\"Europe/Berlin\","
				+ "\"window\":\"1h\"}}"))
			.startsWith("Invalid rate limit of route 'zone-alone' (RateLimited) (zone): ")
			.contains("apply to a limit with a period");
		assertThat(refused("day-alone", "{\"name\":\"RateLimited\",\"args\":{\"first-day-of-week\":\"sunday\"}}"))
			.startsWith("Invalid rate limit of route 'day-alone' (RateLimited) (first-day-of-week): ")
			.contains("apply to a limit with a period");
	}

	/**
	 * Posts the route {@code id} with {@code filter} and refreshes the gateway's routes: the refresh answers 200, the
	 * gateway keeps the routes it had and takes none of the posted one, whose error its log (and its
	 * {@code RefreshRoutesResultEvent}) has; then deletes the route, after which a refresh succeeds again.
	 * @return the message of the refresh's error
	 */
	private String refused(String id, String filter) throws Exception {
		String json = "{\"id\":\"" + id + "\",\"uri\":\"" + backend.uri() + "\",\"predicates\":[{\"name\":"
				+ "\"Path\",\"args\":{\"_genkey_0\":\"/" + id + "/**\"}}],\"filters\":[" + filter + "]}";
		RefreshErrors errors = gateway.context().getBean(RefreshErrors.class);
		errors.clear();
		assertThat(gateway.send("POST", "/actuator/gateway/routes/" + id, json).statusCode()).isEqualTo(201);
		try {
			assertThat(gateway.send("POST", "/actuator/gateway/refresh", "").statusCode()).isEqualTo(200);
			Throwable error = errors.awaitError();
			assertThat(gateway.get("/" + id + "/x").statusCode()).isEqualTo(404);
			assertThat(gateway.get("/keyed/refused", "X-Api-Key", "refused-" + id).statusCode()).isEqualTo(200);
			return invalid(error);
		}
		finally {
			assertThat(gateway.send("DELETE", "/actuator/gateway/routes/" + id, "").statusCode()).isEqualTo(200);
			gateway.send("POST", "/actuator/gateway/refresh", "");
			assertThat(errors.awaitSuccess()).isTrue();
		}
	}

	/** The message of the first exception of {@code error}'s causes that says the rate limit is invalid. */
	private static String invalid(Throwable error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().startsWith("Invalid rate limit")) {
				return cause.getMessage();
			}
		}
		throw new AssertionError("No invalid rate limit in " + error, error);
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

	/** What the gateway's refreshes of its routes ended with: its endpoint answers 200 whatever they end with. */
	@Configuration(proxyBeanMethods = false)
	static class RefreshErrors implements ApplicationListener<RefreshRoutesResultEvent> {

		private final BlockingQueue<Optional<Throwable>> results = new LinkedBlockingQueue<>();

		@Override
		public void onApplicationEvent(RefreshRoutesResultEvent event) {
			this.results.add(Optional.ofNullable(event.getThrowable()));
		}

		void clear() {
			this.results.clear();
		}

		/** The error of the next refresh that fails, within 10 s. */
		Throwable awaitError() throws InterruptedException {
			Optional<Throwable> result;
			do {
				result = this.results.poll(10, TimeUnit.SECONDS);
				assertThat(result).as("a refresh's result within 10 s").isNotNull();
			}
			while (result.isEmpty());
			return result.get();
		}

		/** Whether the next refresh succeeds, within 10 s (the refreshes before it dropped). */
		boolean awaitSuccess() throws InterruptedException {
			long deadline = System.nanoTime() + 10_000_000_000L;
			while (System.nanoTime() < deadline) {
				Optional<Throwable> result = this.results.poll(100, TimeUnit.MILLISECONDS);
				if (result != null && result.isEmpty()) {
					return true;
				}
			}
			return false;
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
