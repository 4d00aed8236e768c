package dev.ratelimit.spring.actuate.endpoint;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.ServerTestSupport;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code management.endpoint.ratelimits.access=read-only}: the endpoint lists the limits, and refuses to change one
 * (the write operation is not mapped at all).
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=endpoint-read-only:", "management.endpoints.web.exposure.include=ratelimits",
				"management.endpoint.ratelimits.access=read-only", "ratelimit.filter.rules[0].name=search",
				"ratelimit.filter.rules[0].paths=/plans/search", "ratelimit.filter.rules[0].limit=100" })
class ReadOnlyRateLimitsEndpointIntegrationTests extends ServerTestSupport {

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@Test
	void readOnlyAccessRefusesToResetEveryClient() throws Exception {
		assertThat(delete("/actuator/ratelimits").statusCode()).isIn(404, 405);
	}

	@Test
	void readOnlyAccessRefusesAChange() throws Exception {
		HttpResponse<String> change = this.http.send(HttpRequest.newBuilder(uri("/actuator/ratelimits/search"))
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"limit\": 1}"))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(change.statusCode()).isIn(404, 405);
		HttpResponse<String> limits = this.http.send(
				HttpRequest.newBuilder(uri("/actuator/ratelimits")).timeout(Duration.ofSeconds(30)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(limits.statusCode()).isEqualTo(200);
		assertThat(JsonPath.<Object>read(limits.body(), "$.overrides")).asList().isEmpty();
		assertThat(JsonPath.<java.util.List<Integer>>read(limits.body(), "$.limits[?(@.name == 'search')].limit"))
			.containsExactly(100);
	}

}
