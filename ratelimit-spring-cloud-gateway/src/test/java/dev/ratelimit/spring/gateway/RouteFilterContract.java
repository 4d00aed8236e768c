package dev.ratelimit.spring.gateway;

import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code RateLimited} route filter on two real gateway instances sharing one Redis, proxying over HTTP to a real
 * backend that counts what reaches it; written once for both gateway servers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RouteFilterContract {

	private static final String[] ALGORITHMS = { "fixed-window", "sliding-log", "sliding-window-counter",
			"token-bucket" };

	private Backend backend;

	private Gateway first;

	private Gateway second;

	@BeforeAll
	void start() throws Exception {
		backend = new Backend();
		List<String> properties = new ArrayList<>();
		String routes = routes();
		int i = 0;
		for (String algorithm : ALGORITHMS) {
			// one route per algorithm, the backend's first path segment telling them apart
			properties.addAll(route(i++, algorithm, "Path=/" + algorithm + "/**", "name=RateLimited",
					"args.algorithm=" + algorithm, "args.limit=5", "args.window=1h",
					"args.key=#request.getHeader('X-Client')"));
		}
		properties.addAll(route(i++, "gone", "Path=/held/gone/**", "name=RateLimited", "args.algorithm=concurrency",
				"args.limit=1", "args.key=#request.getHeader('X-Client')"));
		properties.addAll(route(i++, "held", "Path=/held/**", "name=RateLimited", "args.algorithm=concurrency",
				"args.limit=2", "args.key=#request.getHeader('X-Client')"));
		properties.addAll(route(i++, "error", "Path=/error/**", "name=RateLimited", "args.algorithm=concurrency",
				"args.limit=1", "args.key=#request.getHeader('X-Client')"));
		// a Retry filter before the limit and after it: retried calls of one client request are charged once
		properties.add(routes + "[" + i + "].id=retry-outer");
		properties.add(routes + "[" + i + "].uri=" + backend.uri());
		properties.add(routes + "[" + i + "].predicates[0]=Path=/retry-outer/**");
		properties.add(routes + "[" + i + "].filters[0]=Retry=2");
		properties.add(routes + "[" + i + "].filters[1].name=RateLimited");
		properties.add(routes + "[" + i + "].filters[1].args.limit=2");
		properties.add(routes + "[" + i + "].filters[1].args.window=1h");
		i++;
		properties.addAll(shortcuts(i++, "retry-inner", "Path=/retry-inner/**", "RateLimited=2, 1h", "Retry=2"));
		// the shortcut form: limit, window, algorithm; keyed by the client's address
		properties.addAll(shortcuts(i++, "short", "Path=/short/**", "RateLimited=2, 1h, sliding-log"));
		// keyed by the client's address, as the server reports it
		properties.addAll(shortcuts(i++, "by-address", "Path=/by-address/**", "RateLimited=1, 1h"));
		// a route with a path rule of ratelimit.filter.rules on it too
		properties.addAll(shortcuts(i++, "both", "Path=/both/**", "RateLimited=1, 1h"));
		properties.add("ratelimit.filter.rules[0].name=rule-on-both");
		properties.add("ratelimit.filter.rules[0].paths=/both/**");
		properties.add("ratelimit.filter.rules[0].limit=10");
		properties.add("ratelimit.filter.rules[0].window=1h");
		// a route chosen by its Host, which a path rule cannot target
		properties.addAll(route(i++, "by-host", "Host=limited.example", "name=RateLimited", "args.limit=1",
				"args.window=1h"));
		// a daily quota in a time zone: a fixed window whose windows are the days there
		properties.addAll(route(i++, "daily", "Path=/daily/**", "name=RateLimited", "args.limit=1",
				"args.period=day", "args.zone=Pacific/Auckland", "args.key=#request.getHeader('X-Client')"));
		// a route that records its clients' usage (per month in UTC: its window is no calendar period)
		properties.addAll(route(i++, "metered", "Path=/metered/**", "name=RateLimited", "args.limit=2",
				"args.window=1h", "args.usage=true", "args.key=#request.getHeader('X-Client')"));
		// a request without the key of a route's expression is refused rather than keyed by its address
		properties.add("ratelimit.missing-key=reject");
		first = gateway(properties.toArray(String[]::new));
		second = gateway(properties.toArray(String[]::new));
	}

	/** A gateway of the server under test with {@code properties}. */
	abstract Gateway gateway(String... properties);

	/** The property of the server's routes. */
	abstract String routes();

	/** A route with filters in the shortcut form ({@code RateLimited=2, 1h}), in order. */
	private List<String> shortcuts(int index, String id, String predicate, String... filters) {
		List<String> properties = route(index, id, predicate);
		for (int k = 0; k < filters.length; k++) {
			properties.add(routes() + "[" + index + "].filters[" + k + "]=" + filters[k]);
		}
		return properties;
	}

	private List<String> route(int index, String id, String predicate, String... filter) {
		String route = routes() + "[" + index + "]";
		List<String> properties = new ArrayList<>(List.of(route + ".id=" + id, route + ".uri=" + backend.uri(),
				route + ".predicates[0]=" + predicate));
		for (String part : filter) {
			properties.add(route + ".filters[0]." + part);
		}
		return properties;
	}

	@AfterAll
	void stop() {
		if (first != null) {
			first.close();
		}
		if (second != null) {
			second.close();
		}
		if (backend != null) {
			backend.close();
		}
	}

	@Test
	void aRouteFilterOfEachAlgorithmAdmitsExactlyItsLimitOverTwoGateways() throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(16);
		try {
			for (String algorithm : ALGORITHMS) {
				List<Callable<Integer>> burst = new ArrayList<>();
				for (int n = 0; n < 40; n++) {
					Gateway gateway = (n % 2 == 0) ? first : second;
					burst.add(() -> gateway.get("/" + algorithm + "/items", "X-Client", "burst").statusCode());
				}
				Map<Integer, Long> statuses = new java.util.TreeMap<>();
				for (Future<Integer> status : clients.invokeAll(burst)) {
					statuses.merge(status.get(), 1L, Long::sum);
				}
				assertThat(statuses).as(algorithm).isEqualTo(Map.of(200, 5L, 429, 35L));
				assertThat(backend.hits(algorithm)).as(algorithm).isEqualTo(5);
			}
		}
		finally {
			clients.shutdownNow();
		}
	}

	@Test
	void aDenialIsTheStartersAnswerAndNeverReachesTheBackend() throws Exception {
		for (int n = 0; n < 2; n++) {
			assertThat(first.get("/short/a").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> denied = first.get("/short/a");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("Retry-After")).hasValueSatisfying(
				(seconds) -> assertThat(Long.parseLong(seconds)).isBetween(1L, 3600L));
		assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValue("\"short\";q=2;w=3600");
		assertThat(denied.headers().firstValue("RateLimit")).hasValueSatisfying(
				(value) -> assertThat(value).startsWith("\"short\";r=0;t="));
		assertThat(denied.headers().firstValue("Cache-Control")).hasValue("no-store");
		assertThat(denied.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(denied.body()).contains("\"status\":429").contains("\"violated-policies\":[\"short\"]");
		assertThat(backend.hits("short")).isEqualTo(2);
	}

	@Test
	void aRequestWithoutItsKeyFollowsTheMissingKeyPolicyAndNeverReachesTheBackend() throws Exception {
		int hits = backend.hits("token-bucket");
		HttpResponse<String> refused = first.get("/token-bucket/no-key");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(backend.hits("token-bucket")).isEqualTo(hits);
	}

	@Test
	void aRouteChosenByItsHostIsLimited() throws Exception {
		assertThat(first.get("/anything", "Host", "limited.example").statusCode()).isEqualTo(200);
		assertThat(second.get("/anything", "Host", "limited.example").statusCode()).isEqualTo(429);
		assertThat(backend.hits("anything")).isEqualTo(1);
	}

	@Test
	void aConcurrencyLimitedRouteHoldsItsLeasesWhileProxyingAndGivesThemBackWhenTheBackendAnswers()
			throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(8);
		try {
			List<Future<HttpResponse<String>>> calls = new ArrayList<>();
			for (int n = 0; n < 6; n++) {
				Gateway gateway = (n % 2 == 0) ? first : second;
				calls.add(clients.submit(() -> gateway.get("/held/x", "X-Client", "leases")));
			}
			// four are refused while two are held at the backend
			awaitDone(calls, 4);
			awaitInFlight(2);
			List<Integer> refused = new ArrayList<>();
			for (Future<HttpResponse<String>> call : calls) {
				if (call.isDone()) {
					refused.add(call.get().statusCode());
				}
			}
			assertThat(refused).containsOnly(429).hasSize(4);
			backend.release();
			List<Integer> statuses = new ArrayList<>();
			for (Future<HttpResponse<String>> call : calls) {
				statuses.add(call.get().statusCode());
			}
			assertThat(statuses.stream().collect(Collectors.groupingBy((s) -> s, Collectors.counting())))
				.isEqualTo(Map.of(200, 2L, 429, 4L));
			assertThat(backend.mostInFlight()).isEqualTo(2);
			// both leases come back (a release is sent, not waited for): two more calls are admitted at once
			Future<HttpResponse<String>> again = clients.submit(() -> admitted(first, "/held/y", "leases"));
			Future<HttpResponse<String>> andAgain = clients.submit(() -> admitted(second, "/held/y", "leases"));
			awaitInFlight(2);
			backend.release();
			assertThat(again.get().statusCode()).isEqualTo(200);
			assertThat(andAgain.get().statusCode()).isEqualTo(200);
		}
		finally {
			backend.release();
			clients.shutdownNow();
		}
	}

	@Test
	void aConcurrencyLimitedRouteGivesItsLeaseBackWhenTheBackendFails() throws Exception {
		for (int n = 0; n < 3; n++) {
			// a denial while the previous lease is on its way back spends nothing
			assertThat(admitted(first, "/error/x", "errors").statusCode()).isEqualTo(500);
		}
		assertThat(backend.hits("error")).isEqualTo(3);
	}

	@Test
	void aClientThatGoesAwayMidProxyGivesItsLeaseBack() throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(2);
		try (Socket socket = new Socket("127.0.0.1", first.port())) {
			socket.getOutputStream().write(("GET /held/gone/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: gone\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			socket.getOutputStream().flush();
			awaitInFlight(1);
		}
		// the client is gone; its call is still held at the backend
		Future<HttpResponse<String>> next = clients.submit(() -> admitted(second, "/held/gone/2", "gone"));
		if (!noticesAClientGoneWhileTheBackendHolds()) {
			// a servlet container learns that the client is gone when it writes the proxied response
			backend.release();
			awaitInFlight(0);
		}
		awaitInFlight(noticesAClientGoneWhileTheBackendHolds() ? 2 : 1);
		backend.release();
		assertThat(next.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		clients.shutdownNow();
	}

	/**
	 * Whether the server cancels a proxied exchange as soon as its client goes away (Reactor Netty), rather than when
	 * it writes the proxied response (a servlet container).
	 */
	abstract boolean noticesAClientGoneWhileTheBackendHolds();

	@Test
	void aRetryFilterBeforeTheLimitChargesOneClientRequestOnce() throws Exception {
		// each client request: three calls of the backend (two retries of its 500), one unit of the limit of 2; what
		// the client gets once the retries are spent is the gateway's (Gateway Server MVC's is no 500)
		assertThat(first.get("/retry-outer/fail").statusCode()).isNotEqualTo(429);
		assertThat(second.get("/retry-outer/fail").statusCode()).isNotEqualTo(429);
		assertThat(backend.hits("retry-outer")).isEqualTo(6);
		HttpResponse<String> denied = first.get("/retry-outer/fail");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("Retry-After")).isPresent();
		assertThat(backend.hits("retry-outer")).isEqualTo(6);
	}

	@Test
	void aRetryFilterAfterTheLimitRetriesWithinTheOneChargedRequest() throws Exception {
		assertThat(first.get("/retry-inner/fail").statusCode()).isNotEqualTo(429);
		assertThat(second.get("/retry-inner/fail").statusCode()).isNotEqualTo(429);
		assertThat(backend.hits("retry-inner")).isEqualTo(6);
		assertThat(first.get("/retry-inner/fail").statusCode()).isEqualTo(429);
		assertThat(backend.hits("retry-inner")).isEqualTo(6);
	}

	@Test
	void aForgedForwardedForBuysNoFreshBudget() throws Exception {
		// without server.forward-headers-strategy the client's address is the connection's, whatever it claims
		assertThat(first.get("/by-address/x", "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
		assertThat(first.get("/by-address/x", "X-Forwarded-For", "198.51.100.2").statusCode()).isEqualTo(429);
		assertThat(second.get("/by-address/x", "Forwarded", "for=198.51.100.3").statusCode()).isEqualTo(429);
		assertThat(backend.hits("by-address")).isEqualTo(1);
	}

	@Test
	void aPathRuleAndARouteFilterAreTwoDecisionsTheRulesFirst() throws Exception {
		assertThat(first.get("/both/x").statusCode()).isEqualTo(200);
		HttpResponse<String> denied = first.get("/both/x");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(
				(policies) -> assertThat(policies).contains("\"both\";q=1;w=3600"));
		// the rule was decided on arrival, before the route's filter denied: its unit is spent (docs/GATEWAY.md)
		HttpResponse<String> again = second.get("/both/x");
		assertThat(again.statusCode()).isEqualTo(429);
		assertThat(again.headers().firstValue("RateLimit")).hasValueSatisfying(
				(states) -> assertThat(states).contains("\"rule-on-both\";r=7"));
		assertThat(backend.hits("both")).isEqualTo(1);
	}

	/**
	 * A daily quota in Auckland: its fields count to the next midnight there, as the JVM's clock and the zone's rules
	 * place it (the wall clock is the behaviour here: a few seconds of margin for Redis' clock and a loaded machine),
	 * its policy's window is the day's nominal length, and both gateways count in the one day.
	 */
	@Test
	void aDailyPeriodInAZoneCountsToMidnightThere() throws Exception {
		ZoneId auckland = ZoneId.of("Pacific/Auckland");
		long before = secondsToMidnight(auckland);
		HttpResponse<String> allowed = first.get("/daily/x", "X-Client", "daily");
		HttpResponse<String> denied = second.get("/daily/x", "X-Client", "daily");
		long after = secondsToMidnight(auckland);
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(allowed.headers().allValues("RateLimit-Policy")).containsExactly("\"daily\";q=1;w=86400");
		assertThat(denied.statusCode()).isEqualTo(429);
		long retryAfter = Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(Math.min(before, after) - 5, Math.max(before, after) + 5);
		assertThat(denied.headers().allValues("RateLimit")).containsExactly("\"daily\";r=0;t=" + retryAfter);
		assertThat(backend.hits("daily")).isEqualTo(1);
	}

	/**
	 * A route with {@code usage} records the units each of its clients used, over both gateways, denials adding
	 * nothing, as a rule's does; the endpoint lists them, and the route's usage period.
	 */
	@Test
	void aRouteWithUsageRecordsEachClientsUnitsReadableAtTheEndpoint() throws Exception {
		// clients of this class alone: the two servers' contracts may share a Redis
		String ann = "ann-" + getClass().getSimpleName();
		String bob = "bob-" + getClass().getSimpleName();
		assertThat(first.get("/metered/x", "X-Client", ann).statusCode()).isEqualTo(200);
		assertThat(second.get("/metered/x", "X-Client", ann).statusCode()).isEqualTo(200);
		assertThat(first.get("/metered/x", "X-Client", ann).statusCode()).isEqualTo(429);
		assertThat(second.get("/metered/x", "X-Client", bob).statusCode()).isEqualTo(200);

		HttpResponse<String> usage = first.get("/actuator/ratelimits/metered/usage");
		assertThat(usage.statusCode()).as(usage.body()).isEqualTo(200);
		String body = usage.body();
		assertThat(JsonPath.<String>read(body, "$.name")).isEqualTo("metered");
		// a month in UTC
		assertThat(JsonPath.<String>read(body, "$.periodStart")).endsWith("-01T00:00:00Z");
		assertThat(JsonPath.<List<Integer>>read(body, "$.entries[?(@.client == 'key:" + ann + "')].units"))
			.containsExactly(2);
		assertThat(JsonPath.<List<Integer>>read(body, "$.entries[?(@.client == 'key:" + bob + "')].units"))
			.containsExactly(1);
		assertThat(JsonPath.<List<String>>read(second.get("/actuator/ratelimits").body(),
				"$.limits[?(@.name == 'metered')].usage"))
			.containsExactly("month");
	}

	/** Seconds from now to the next midnight in {@code zone}, as the JVM's clock and the zone's rules place it. */
	static long secondsToMidnight(ZoneId zone) {
		ZonedDateTime now = ZonedDateTime.now(zone);
		return Duration.between(now, now.toLocalDate().plusDays(1).atStartOfDay(zone)).toSeconds();
	}

	/** The first answer to {@code path} for {@code client} that is not a 429, within 10 s. */
	private static HttpResponse<String> admitted(Gateway gateway, String path, String client) throws Exception {
		long deadline = System.nanoTime() + 10_000_000_000L;
		HttpResponse<String> response = gateway.get(path, "X-Client", client);
		while (response.statusCode() == 429 && System.nanoTime() < deadline) {
			Thread.sleep(20);
			response = gateway.get(path, "X-Client", client);
		}
		return response;
	}

	private static void awaitDone(List<? extends Future<?>> calls, int done) throws InterruptedException {
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (calls.stream().filter(Future::isDone).count() < done && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
	}

	private void awaitInFlight(int calls) throws InterruptedException {
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (backend.inFlight() != calls && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(backend.inFlight()).isEqualTo(calls);
	}

}
