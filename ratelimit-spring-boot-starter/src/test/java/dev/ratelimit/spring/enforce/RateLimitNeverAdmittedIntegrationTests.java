package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.HeaderStyle;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.test.app.ClockedLimiterConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.servlet.ServletLimitedRequest;
import org.junit.jupiter.api.Test;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * A request whose cost exceeds what its limit can ever hold: a 429 whose problem says so, and no Retry-After that
 * would promise a time. Static validation rejects such a cost in annotations and rules, so over HTTP it takes a
 * {@code RateLimiter} that charges more (here {@link ClockedLimiterConfiguration}'s), as an application computing
 * costs could.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, ClockedLimiterConfiguration.class },
		properties = { "ratelimit.key-prefix=http-clocked:",
				"spring.autoconfigure.exclude=org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@AutoConfigureMockMvc
class RateLimitNeverAdmittedIntegrationTests {

	@Autowired
	private MockMvc mvc;

	@Test
	void requestThatCanNeverFitIsDeniedWithoutRetryAfter() throws Exception {
		MockHttpServletResponse response = this.mvc
			.perform(get("/clocked/oversized").header("X-Client", "never-admitted"))
			.andReturn()
			.getResponse();
		assertThat(response.getStatus()).isEqualTo(429);
		assertThat(response.getHeader("Retry-After")).isNull();
		assertThat(response.getHeader("Cache-Control")).isEqualTo("no-store");
		assertThat(response.getContentType()).isEqualTo("application/problem+json");
		assertThat(response.getHeader("RateLimit-Policy")).isEqualTo("\"oversized\";q=10;w=60");
		// Nothing was taken: the bucket is full, and no wait would help.
		assertThat(response.getHeader("RateLimit")).isEqualTo("\"oversized\";r=10;t=0");
		JSONAssert.assertEquals("""
				{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded",
				 "title":"Too Many Requests","status":429,
				 "detail":"Rate limit 'oversized' can never admit this request: its cost 11 exceeds what the limit allows (10)",
				 "instance":"/clocked/oversized","violated-policies":["oversized"]}""", response.getContentAsString(),
				JSONCompareMode.STRICT);
	}

	@Test
	void neverAdmittedOutranksAWaitInAnotherLimit() {
		LimitRequest waiting = LimitDefinition.of("waiting", Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10)).request();
		LimitRequest oversized = new LimitDefinition("oversized", Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(1), 10)
			.request(11);
		RateLimitDecision decision = new RateLimitDecision(List.of(
				LimitDecision.denied(waiting, 4_200, new LimitDecision.Allowance(0, 4_200, 4_200)),
				LimitDecision.never(oversized, new LimitDecision.Allowance(10, 0, 0))));
		RateLimitResponder responses = new RateLimitResponder(new RateLimitHeaderWriter(HeaderStyle.IETF),
				Duration.ofSeconds(1));
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/bulk-import");
		RateLimitExceededException denied = responses.exceeded(
				new ServletLimitedRequest(request, new MockHttpServletResponse()), decision.decisions(), decision);
		assertThat(denied.getStatusCode().value()).isEqualTo(429);
		assertThat(denied.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNull();
		assertThat(denied.getHeaders().getFirst(HttpHeaders.CACHE_CONTROL)).isEqualTo("no-store");
		assertThat(denied.getHeaders().getFirst("RateLimit")).isEqualTo("\"waiting\";r=0;t=5, \"oversized\";r=10;t=0");
		assertThat(denied.getBody().getDetail()).isEqualTo(
				"Rate limit 'oversized' can never admit this request: its cost 11 exceeds what the limit allows (10)");
		assertThat(denied.getViolatedPolicies()).containsExactly("waiting", "oversized");
	}

	@Test
	void retryAfterIsWholeSecondsRoundedUpAndNeverBelowOne() {
		assertThat(RateLimitHeaderWriter.retryAfterSeconds(0)).isEqualTo(1);
		assertThat(RateLimitHeaderWriter.retryAfterSeconds(1)).isEqualTo(1);
		assertThat(RateLimitHeaderWriter.retryAfterSeconds(1_000)).isEqualTo(1);
		assertThat(RateLimitHeaderWriter.retryAfterSeconds(1_001)).isEqualTo(2);
		assertThat(RateLimitHeaderWriter.retryAfterSeconds(59_999)).isEqualTo(60);
	}

}
