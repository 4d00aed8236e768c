package dev.ratelimit.spring.actuate.endpoint;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.spring.test.ClientTags;
import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.test.app.RateLimitWebFluxTestApplication;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client's override set through the {@code ratelimits} endpoint of one instance, applied by another that shares its
 * Redis within its poll ({@code ratelimit.overrides.poll-interval}, 100 ms here), and undone through the other: one
 * instance on Spring MVC, one on WebFlux, each a real server.
 */
class ClientOverridesOnTwoInstancesIntegrationTests {

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@Test
	void aClientsOverrideWrittenThroughOneInstanceIsAppliedByTheOtherAndUndoneThroughIt() throws Exception {
		String prefix = "endpoint-two-" + UUID.randomUUID() + ":";
		String tag = ClientTags.of("key:tenant-two");
		try (ConfigurableApplicationContext mvc = start(RateLimitTestApplication.class, "servlet", prefix);
				ConfigurableApplicationContext webflux = start(RateLimitWebFluxTestApplication.class, "reactive",
						prefix)) {
			HttpResponse<String> set = post(mvc, "/actuator/ratelimits/search",
					"{\"client\": \"tenant-two\", \"limit\": 2, \"window\": \"1h\"}");
			assertThat(set.statusCode()).as(set.body()).isEqualTo(200);

			awaitOverrides(webflux, List.of(tag));
			assertThat(api(webflux, "tenant-two")).isEqualTo(200);
			assertThat(api(webflux, "tenant-two")).isEqualTo(200);
			assertThat(api(webflux, "tenant-two")).isEqualTo(429);
			// one budget on both instances
			assertThat(api(mvc, "tenant-two")).isEqualTo(429);
			assertThat(api(webflux, "tenant-other")).isEqualTo(200);
			assertThat(api(webflux, "tenant-other")).isEqualTo(200);
			assertThat(api(webflux, "tenant-other")).isEqualTo(200);

			HttpResponse<String> undone = post(webflux, "/actuator/ratelimits/search",
					"{\"client\": \"tenant-two\", \"undo\": true}");
			assertThat(undone.statusCode()).as(undone.body()).isEqualTo(200);
			awaitOverrides(mvc, List.of());
			// the configured 100 a minute
			assertThat(api(mvc, "tenant-two")).isEqualTo(200);
		}
	}

	/** Waits for {@code instance} to have read the overrides of these client tags: at most 30 s, for a loaded machine. */
	private void awaitOverrides(ConfigurableApplicationContext instance, List<String> tags) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		List<Object> inForce = inForce(instance);
		while (!inForce.equals(List.copyOf(tags)) && System.nanoTime() < deadline) {
			LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
			inForce = inForce(instance);
		}
		assertThat(inForce).containsExactlyElementsOf(tags);
	}

	private List<Object> inForce(ConfigurableApplicationContext instance) throws Exception {
		return JsonPath.read(send(instance, HttpRequest.newBuilder(uri(instance, "/actuator/ratelimits")).GET()).body(),
				"$.overrides[?(@.inForce == true)].client");
	}

	private int api(ConfigurableApplicationContext instance, String apiKey) throws Exception {
		return send(instance, HttpRequest.newBuilder(uri(instance, "/plans/search")).header("X-Api-Key", apiKey).GET())
			.statusCode();
	}

	private HttpResponse<String> post(ConfigurableApplicationContext instance, String path, String json)
			throws Exception {
		return send(instance, HttpRequest.newBuilder(uri(instance, path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json)));
	}

	private HttpResponse<String> send(ConfigurableApplicationContext instance, HttpRequest.Builder request)
			throws Exception {
		return this.http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private static URI uri(ConfigurableApplicationContext instance, String path) {
		return URI.create("http://127.0.0.1:" + instance.getEnvironment().getProperty("local.server.port") + path);
	}

	private static ConfigurableApplicationContext start(Class<?> application, String stack, String prefix) {
		return new SpringApplicationBuilder(application, PlansConfiguration.class).run("--server.port=0",
				"--spring.main.web-application-type=" + stack, "--spring.data.redis.url=" + TestRedis.shared().url(),
				"--ratelimit.key-prefix=" + prefix, "--ratelimit.redis.timeout=10s",
				"--ratelimit.overrides.poll-interval=100ms", "--management.endpoints.web.exposure.include=ratelimits",
				"--ratelimit.plan.expression=@apiKeyPlans.plan(#request)", "--ratelimit.plans.free.plan-reports.limit=2",
				"--ratelimit.plans.pro.plan-reports.limit=5", "--ratelimit.filter.rules[0].name=search",
				"--ratelimit.filter.rules[0].paths=/plans/search", "--ratelimit.filter.rules[0].algorithm=fixed-window",
				"--ratelimit.filter.rules[0].limit=100", "--ratelimit.filter.rules[0].key=@apiKeyPlans.key(#request)");
	}

}
