package dev.ratelimit.spring.actuate.endpoint;

import java.net.http.HttpResponse;

import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.ServerTestSupport;
import dev.ratelimit.spring.web.SharedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimits} endpoint with Redis at a port where nothing listens: the listing needs no Redis, a read or a
 * reset answers 503 with the reason, never a 500.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = { SharedRedis.CLOSED_URL, "management.endpoints.web.exposure.include=ratelimits" })
class RateLimitsEndpointWhenRedisFailsIntegrationTests extends ServerTestSupport {

	@Test
	void readsAndResetsAnswer503WhileTheListingStillAnswers() throws Exception {
		assertThat(get("/actuator/ratelimits").statusCode()).isEqualTo(200);
		HttpResponse<String> read = get("/actuator/ratelimits/trial?client=ip:10.12.0.1");
		assertThat(read.statusCode()).isEqualTo(503);
		assertThat(read.body()).contains("did not answer");
		HttpResponse<String> reset = delete("/actuator/ratelimits/trial?client=ip:10.12.0.1");
		assertThat(reset.statusCode()).isEqualTo(503);
		assertThat(reset.body()).contains("did not answer");
	}

}
