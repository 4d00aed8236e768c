package dev.ratelimit.spring.autoconfigure;

import java.net.http.HttpResponse;

import dev.ratelimit.spring.autoconfigure.app.PlansConfiguration;
import dev.ratelimit.spring.autoconfigure.app.RateLimitTestApplication;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shadow limit never refuses a request, not even when Redis fails and its failure policy is fail-closed: Redis is
 * at a port where nothing listens, and an enforced fail-closed limit beside it shows that the failure is real.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = { SharedRedis.CLOSED_URL, "ratelimit.defaults.failure-policy=fail-closed",
		"ratelimit.filter.rules[0].name=dry-run", "ratelimit.filter.rules[0].paths=/shadow/only",
		"ratelimit.filter.rules[0].mode=shadow", "ratelimit.filter.rules[1].name=guard",
		"ratelimit.filter.rules[1].paths=/plans/search" })
class ShadowWhenRedisFailsTests extends ServerTestSupport {

	@Test
	void aFailClosedShadowLimitLetsTheRequestThrough() throws Exception {
		HttpResponse<String> shadow = get("/shadow/only");
		assertThat(shadow.statusCode()).isEqualTo(200);
		assertThat(shadow.headers().map().keySet()).noneMatch((name) -> name.toLowerCase().startsWith("ratelimit"));
	}

	@Test
	void aFailClosedEnforcedLimitAnswers503() throws Exception {
		assertThat(get("/plans/search").statusCode()).isEqualTo(503);
	}

}
