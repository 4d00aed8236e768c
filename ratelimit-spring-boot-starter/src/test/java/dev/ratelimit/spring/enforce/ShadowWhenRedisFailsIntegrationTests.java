package dev.ratelimit.spring.enforce;

import java.net.http.HttpResponse;

import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.ServerTestSupport;
import dev.ratelimit.spring.web.SharedRedis;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shadow limit never refuses a request, not even when Redis fails and its failure policy is fail-closed: Redis is
 * at a port where nothing listens, and an enforced fail-closed limit beside it shows that the failure is real. The
 * metrics count the shadow limit as skipped (fail-open) and the enforced one as fail-closed.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = { SharedRedis.CLOSED_URL, "ratelimit.defaults.failure-policy=fail-closed",
		"ratelimit.filter.rules[0].name=dry-run", "ratelimit.filter.rules[0].paths=/shadow/only",
		"ratelimit.filter.rules[0].mode=shadow", "ratelimit.filter.rules[1].name=guard",
		"ratelimit.filter.rules[1].paths=/plans/search" })
class ShadowWhenRedisFailsIntegrationTests extends ServerTestSupport {

	@Autowired
	private MeterRegistry registry;

	@Test
	void aFailClosedShadowLimitLetsTheRequestThroughAndAnEnforcedOneAnswers503() throws Exception {
		for (int i = 0; i < 2; i++) {
			HttpResponse<String> shadow = get("/shadow/only");
			assertThat(shadow.statusCode()).isEqualTo(200);
			assertThat(shadow.headers().map().keySet())
				.noneMatch((name) -> name.toLowerCase().startsWith("ratelimit"));
		}
		assertThat(get("/plans/search").statusCode()).isEqualTo(503);

		assertThat(count("dry-run", "fail-open")).isEqualTo(2);
		assertThat(count("dry-run", "fail-closed")).isZero();
		assertThat(count("guard", "fail-closed")).isEqualTo(1);
		assertThat(count("guard", "fail-open")).isZero();
		assertThat(this.registry.get("ratelimit.redis.calls").tag("outcome", "failure").timer().count()
				+ this.registry.get("ratelimit.redis.calls").tag("outcome", "timeout").timer().count())
			.isEqualTo(3);
		assertThat(this.registry.get("ratelimit.redis.calls").tag("outcome", "success").timer().count()).isZero();
	}

	private double count(String limit, String outcome) {
		return this.registry.get("ratelimit.decisions").tag("limit", limit).tag("outcome", outcome).counter().count();
	}

}
