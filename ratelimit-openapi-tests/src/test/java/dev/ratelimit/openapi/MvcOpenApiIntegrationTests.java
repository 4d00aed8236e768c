package dev.ratelimit.openapi;

import java.util.Arrays;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link OpenApiContract} on Spring MVC (Tomcat), with springdoc-openapi-starter-webmvc-api. */
class MvcOpenApiIntegrationTests extends OpenApiContract {

	@Override
	WebApplicationType type() {
		return WebApplicationType.SERVLET;
	}

	/** The fields follow ratelimit.header-style: written once for both stacks, so tested on one. */
	@Test
	void theFieldsDocumentedAreThoseOfTheHeaderStyle() throws Exception {
		int legacy = start(Stream.concat(Arrays.stream(PROPERTIES), Stream.of("ratelimit.header-style=legacy"))
			.toArray(String[]::new));
		JsonNode document = JsonMapper.builder().build().readTree(get(legacy, "/v3/api-docs").body());
		JsonNode responses = document.path("paths").path("/reports").path("get").path("responses");
		assertThat(names(responses.path("200").path("headers"))).containsExactlyInAnyOrder("RateLimit-Limit",
				"RateLimit-Remaining", "RateLimit-Reset");
		assertThat(names(responses.path("429").path("headers"))).containsExactlyInAnyOrder("Retry-After",
				"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset");
		assertThat(responses.path("200").path("headers").path("RateLimit-Limit").path("description").asString())
			.contains("reports: 2 per 1m (token bucket)");
		get(legacy, "/reports");
		assertThat(fieldNames(responses.path("200"))).containsAll(rateLimitFields(get(legacy, "/reports")));
	}

}
