package dev.ratelimit.spring.enforce;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.spring.test.app.XClient;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exact admission across a fleet: two application instances on one Redis, 100 concurrent requests of one client
 * spread over both, admit exactly the limit, on each web stack; for a filter rule, an annotation decided on arrival,
 * and an annotation whose key reads a {@code Mono} handler's argument (decided when subscribed).
 */
@ExtendWith(NoBlocking.class)
class TwoInstancesExactnessIntegrationTests {

	private static final int LIMIT = 20;

	private static final int REQUESTS = 100;

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void concurrentRequestsOverTwoInstancesAdmitExactlyTheLimit(String webApplicationType) throws Exception {
		String prefix = "two-instances-" + webApplicationType + "-" + UUID.randomUUID() + ":";
		try (ConfigurableApplicationContext first = start(webApplicationType, prefix);
				ConfigurableApplicationContext second = start(webApplicationType, prefix)) {
			List<Integer> ports = List.of(port(first), port(second));
			for (String path : List.of("/rule", "/annotated", "/argument/" + UUID.randomUUID())) {
				String client = UUID.randomUUID().toString();
				List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
				for (int i = 0; i < REQUESTS; i++) {
					URI uri = URI.create("http://127.0.0.1:" + ports.get(i % 2) + path);
					responses.add(this.http.sendAsync(HttpRequest.newBuilder(uri)
						.header("X-Client", client)
						.timeout(Duration.ofSeconds(60))
						.build(), HttpResponse.BodyHandlers.ofString()));
				}
				List<Integer> statuses = new ArrayList<>();
				for (CompletableFuture<HttpResponse<String>> response : responses) {
					statuses.add(response.get(90, TimeUnit.SECONDS).statusCode());
				}
				assertThat(statuses).as(webApplicationType + " " + path).filteredOn((status) -> status == 200)
					.hasSize(LIMIT);
				assertThat(statuses).as(webApplicationType + " " + path).filteredOn((status) -> status == 429)
					.hasSize(REQUESTS - LIMIT);
			}
		}
	}

	private static ConfigurableApplicationContext start(String webApplicationType, String prefix) {
		return new SpringApplicationBuilder(ExactnessApplication.class).run("--server.port=0",
				"--server.address=127.0.0.1", "--spring.main.web-application-type=" + webApplicationType,
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--ratelimit.key-prefix=" + prefix,
				// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
				"--ratelimit.redis.timeout=30s", "--ratelimit.filter.rules[0].name=rule",
				"--ratelimit.filter.rules[0].paths=/rule", "--ratelimit.filter.rules[0].limit=" + LIMIT,
				"--ratelimit.filter.rules[0].window=1h", "--ratelimit.filter.rules[0].key=@xClient.of(#request)");
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(ExactnessController.class)
	static class ExactnessApplication {

		@Bean
		XClient xClient() {
			return new XClient();
		}

		/** Reactor Netty resources of its own: closing one instance must not stop the other's event loops. */
		@Bean
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory factory = new ReactorResourceFactory();
			factory.setUseGlobalResources(false);
			return factory;
		}

	}

	@RestController
	static class ExactnessController {

		@GetMapping("/rule")
		String rule() {
			return "rule";
		}

		@RateLimited(name = "annotated", limit = LIMIT, window = "1h", key = "@xClient.of(#request)")
		@GetMapping("/annotated")
		String annotated() {
			return "annotated";
		}

		@RateLimited(name = "argument", limit = LIMIT, window = "1h", key = "#id")
		@GetMapping("/argument/{id}")
		Mono<String> argument(@PathVariable String id) {
			return Mono.just(id);
		}

	}

}
