package dev.ratelimit.spring.aop;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.spring.test.app.XClient;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Within an HTTP request a denial is answered at once with 429 (a server does not hold a thread for a permit),
 * unless the annotation sets {@code maxWait}: then the request waits the retry-after and is admitted, on Spring MVC
 * (blocking the request's thread) and on WebFlux (with a delay, BlockHound watching); for a limit decided on the
 * request's arrival and for one whose key reads the handler's argument; and for a concurrency limit, until the
 * request holding the lease ends (woken by its release: the lease time is a minute, and no decision is made
 * meanwhile).
 */
@ExtendWith(NoBlocking.class)
class WaitsWithinRequestsIntegrationTests {

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void aRequestWaitsForAPermitOnlyWhenItsLimitSetsMaxWait(String webApplicationType) throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WaitingApplication.class).run(
				"--server.port=0", "--server.address=127.0.0.1", "--spring.main.web-application-type=" + webApplicationType,
				"--spring.data.redis.url=" + TestRedis.shared().url(),
				"--ratelimit.key-prefix=within-" + UUID.randomUUID() + ":", "--ratelimit.redis.timeout=30s")) {
			String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
			String id = UUID.randomUUID().toString();
			for (String path : new String[] { "/patient", "/patient/" + id }) {
				long firstSent = System.nanoTime();
				assertThat(get(base + path).statusCode()).isEqualTo(200);
				long firstAnswered = System.nanoTime();
				HttpResponse<String> waited = get(base + path);
				long end = System.nanoTime();
				assertThat(waited.statusCode()).as(path).isEqualTo(200);
				// A token every 2 s, from the first request's admission, which came after it was sent: the second
				// request waited for that token (however long the machine took between the two requests), and not
				// for a second one, 4 s after the first admission.
				assertThat((end - firstSent) / 1_000_000).as(path).isGreaterThanOrEqualTo(1_900L);
				assertThat((end - firstAnswered) / 1_000_000).as(path).isLessThan(3_500L);
			}
			assertThat(get(base + "/impatient").statusCode()).isEqualTo(200);
			HttpResponse<String> denied = get(base + "/impatient");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(denied.headers().firstValue("Retry-After")).isPresent();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void aRequestWaitsForALeaseWhenItsConcurrencyLimitSetsMaxWait(String webApplicationType) throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WaitingApplication.class).run(
				"--server.port=0", "--server.address=127.0.0.1", "--spring.main.web-application-type=" + webApplicationType,
				"--spring.data.redis.url=" + TestRedis.shared().url(),
				"--ratelimit.key-prefix=within-" + UUID.randomUUID() + ":", "--ratelimit.redis.timeout=30s")) {
			String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
			String client = UUID.randomUUID().toString();
			CompletableFuture<Void> gate = WaitingController.gates.computeIfAbsent(client,
					(key) -> new CompletableFuture<>());
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			CompletableFuture<HttpResponse<String>> holder = send(base + "/one-at-a-time", client);
			while (!WaitingController.entered.contains(client)) {
				assertThat(holder).isNotDone();
				Thread.sleep(10);
			}
			CompletableFuture<HttpResponse<String>> waiter = send(base + "/one-at-a-time", client);
			while (denials(registry) < 2) {
				assertThat(waiter).isNotDone();
				Thread.sleep(10);
			}
			gate.complete(null);
			assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
			assertThat(waiter.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
			assertThat(denials(registry)).as("denied, then denied once listening; woken by the release").isEqualTo(2);
		}
	}

	private static long denials(MeterRegistry registry) {
		Counter denied = registry.find("ratelimit.decisions").tag("limit", "one-at-a-time").tag("outcome", "denied")
			.counter();
		return (denied != null) ? (long) denied.count() : 0;
	}

	private CompletableFuture<HttpResponse<String>> send(String uri, String client) {
		return this.http.sendAsync(HttpRequest.newBuilder(URI.create(uri))
			.header("X-Client", client)
			.timeout(Duration.ofSeconds(60))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String uri) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(WaitingController.class)
	static class WaitingApplication {

		@Bean
		XClient xClient() {
			return new XClient();
		}

	}

	@RestController
	static class WaitingController {

		static final Map<String, CompletableFuture<Void>> gates = new ConcurrentHashMap<>();

		static final Set<String> entered = ConcurrentHashMap.newKeySet();

		/** One request of a client at a time, held until the test opens the client's gate; a lease time of a minute. */
		@RateLimited(name = "one-at-a-time", algorithm = "concurrency", limit = 1, window = "60s",
				key = "@xClient.of(#request)", maxWait = "30s")
		@GetMapping("/one-at-a-time")
		Mono<String> oneAtATime(@RequestHeader("X-Client") String client) {
			return Mono.defer(() -> {
				entered.add(client);
				return Mono.fromFuture(gates.computeIfAbsent(client, (key) -> new CompletableFuture<>()), true);
			}).thenReturn("done");
		}

		@RateLimited(name = "patient", limit = 1, window = "2s", maxWait = "10s")
		@GetMapping("/patient")
		String patient() {
			return "patient";
		}

		@RateLimited(name = "patient-argument", limit = 1, window = "2s", key = "#id", maxWait = "10s")
		@GetMapping("/patient/{id}")
		Mono<String> patientArgument(@PathVariable String id) {
			return Mono.just(id);
		}

		@RateLimited(name = "impatient", limit = 1, window = "1h")
		@GetMapping("/impatient")
		String impatient() {
			return "impatient";
		}

	}

}
