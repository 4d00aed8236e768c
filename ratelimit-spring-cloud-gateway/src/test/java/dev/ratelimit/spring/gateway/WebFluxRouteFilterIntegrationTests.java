package dev.ratelimit.spring.gateway;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code RateLimited} route filter on two real Gateway Server WebFlux instances sharing one Redis, proxying over
 * HTTP to a real backend that counts what reaches it.
 */
class WebFluxRouteFilterIntegrationTests {

	private static final String[] ALGORITHMS = { "fixed-window", "sliding-log", "sliding-window-counter",
			"token-bucket" };

	private static Backend backend;

	private static Gateway first;

	private static Gateway second;

	@BeforeAll
	static void start() throws Exception {
		backend = new Backend();
		List<String> properties = new ArrayList<>();
		String routes = "spring.cloud.gateway.server.webflux.routes";
		int i = 0;
		for (String algorithm : ALGORITHMS) {
			// one route per algorithm, the backend's first path segment telling them apart
			properties.addAll(route(i++, algorithm, "Path=/" + algorithm + "/**", "name=RateLimited",
					"args.algorithm=" + algorithm, "args.limit=5", "args.window=1h",
					"args.key=#request.getHeader('X-Client')"));
		}
		properties.addAll(route(i++, "held", "Path=/held/**", "name=RateLimited", "args.algorithm=concurrency",
				"args.limit=2", "args.key=#request.getHeader('X-Client')"));
		properties.addAll(route(i++, "error", "Path=/error/**", "name=RateLimited", "args.algorithm=concurrency",
				"args.limit=1", "args.key=#request.getHeader('X-Client')"));
		// the shortcut form: limit, window, algorithm; keyed by the client's address
		properties.add(routes + "[" + i + "].id=short");
		properties.add(routes + "[" + i + "].uri=" + backend.uri());
		properties.add(routes + "[" + i + "].predicates[0]=Path=/short/**");
		properties.add(routes + "[" + i + "].filters[0]=RateLimited=2, 1h, sliding-log");
		i++;
		// a route chosen by its Host, which a path rule cannot target
		properties.addAll(route(i++, "by-host", "Host=limited.example", "name=RateLimited", "args.limit=1",
				"args.window=1h"));
		first = Gateway.webflux(new Class<?>[] { GatewayTestApplication.class }, properties.toArray(String[]::new));
		second = Gateway.webflux(new Class<?>[] { GatewayTestApplication.class }, properties.toArray(String[]::new));
	}

	private static List<String> route(int index, String id, String predicate, String... filter) {
		String route = "spring.cloud.gateway.server.webflux.routes[" + index + "]";
		List<String> properties = new ArrayList<>(List.of(route + ".id=" + id, route + ".uri=" + backend.uri(),
				route + ".predicates[0]=" + predicate));
		for (String part : filter) {
			properties.add(route + ".filters[0]." + part);
		}
		return properties;
	}

	@AfterAll
	static void stop() {
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
			List<Integer> refused = new ArrayList<>();
			for (Future<HttpResponse<String>> call : calls) {
				if (call.isDone() || waitBriefly(call)) {
					refused.add(call.get().statusCode());
				}
			}
			assertThat(refused).containsOnly(429).hasSize(4);
			assertThat(backend.inFlight()).isEqualTo(2);
			backend.release();
			List<Integer> statuses = new ArrayList<>();
			for (Future<HttpResponse<String>> call : calls) {
				statuses.add(call.get().statusCode());
			}
			assertThat(statuses.stream().collect(Collectors.groupingBy((s) -> s, Collectors.counting())))
				.isEqualTo(Map.of(200, 2L, 429, 4L));
			assertThat(backend.mostInFlight()).isEqualTo(2);
			// both leases are back: two more calls are admitted at once
			Future<HttpResponse<String>> again = clients.submit(() -> first.get("/held/y", "X-Client", "leases"));
			Future<HttpResponse<String>> andAgain = clients.submit(() -> second.get("/held/y", "X-Client", "leases"));
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
			assertThat(first.get("/error/x", "X-Client", "errors").statusCode()).isEqualTo(500);
		}
		assertThat(backend.hits("error")).isEqualTo(3);
	}

	private static boolean waitBriefly(Future<?> call) throws InterruptedException {
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (!call.isDone() && System.nanoTime() < deadline) {
			Thread.sleep(10);
			if (backend.inFlight() == 2 && call.isDone()) {
				return true;
			}
		}
		return call.isDone();
	}

	private static void awaitInFlight(int calls) throws InterruptedException {
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (backend.inFlight() < calls && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(backend.inFlight()).isEqualTo(calls);
	}

}
