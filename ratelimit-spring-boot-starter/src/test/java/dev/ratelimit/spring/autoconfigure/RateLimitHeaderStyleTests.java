package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.autoconfigure.app.RateLimitTestApplication;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.servlet.MockMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * {@code ratelimit.header-style}: the older header forms and none at all; {@code Retry-After} on every 429
 * whatever the style. {@code /styled} allows 2 per minute (a token every 30 s); {@code /combo} has a filter rule of
 * 5 per minute on top of its annotation of 3.
 */
@SpringBootTest(classes = RateLimitTestApplication.class,
		properties = { "ratelimit.filter.rules[0].name=edge", "ratelimit.filter.rules[0].paths=/combo",
				"ratelimit.filter.rules[0].limit=5" })
@AutoConfigureMockMvc
class RateLimitHeaderStyleTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> TestRedis.shared().url());
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		registry.add("ratelimit.redis.timeout", () -> "10s");
	}

	@Nested
	@TestPropertySource(properties = { "ratelimit.header-style=legacy", "ratelimit.key-prefix=http-style-legacy:" })
	class Legacy {

		@Autowired
		private MockMvc mvc;

		@Test
		void allowedAndDeniedResponsesCarryLimitRemainingAndReset() throws Exception {
			MockHttpServletResponse first = call(this.mvc, "/styled");
			assertThat(first.getStatus()).isEqualTo(200);
			assertThat(first.getHeader("RateLimit-Limit")).isEqualTo("2");
			assertThat(first.getHeader("RateLimit-Remaining")).isEqualTo("1");
			assertThat(first.getHeader("RateLimit-Reset")).isEqualTo("30");
			assertThat(first.getHeaderNames()).doesNotContain("RateLimit", "RateLimit-Policy", "X-RateLimit-Limit");
			assertThat(call(this.mvc, "/styled").getHeader("RateLimit-Remaining")).isEqualTo("0");
			MockHttpServletResponse denied = call(this.mvc, "/styled");
			assertThat(denied.getStatus()).isEqualTo(429);
			assertThat(denied.getHeader("Retry-After")).isEqualTo("30");
			assertThat(denied.getHeader("RateLimit-Limit")).isEqualTo("2");
			assertThat(denied.getHeader("RateLimit-Remaining")).isEqualTo("0");
			assertThat(denied.getHeader("RateLimit-Reset")).isEqualTo("30");
			assertThat(denied.getHeaderNames()).doesNotContain("RateLimit", "RateLimit-Policy");
			assertThat(denied.getContentType()).isEqualTo("application/problem+json");
		}

		@Test
		void singleValuedFieldsShowTheMostRestrictiveLimit() throws Exception {
			MockHttpServletResponse first = call(this.mvc, "/combo");
			assertThat(first.getStatus()).isEqualTo(200);
			// edge (filter rule) has 4 of 5 left, combo (annotation) 2 of 3: combo is the most restrictive.
			assertThat(first.getHeaders("RateLimit-Limit")).containsExactly("3");
			assertThat(first.getHeaders("RateLimit-Remaining")).containsExactly("2");
			assertThat(first.getHeaders("RateLimit-Reset")).containsExactly("20");
			call(this.mvc, "/combo");
			call(this.mvc, "/combo");
			MockHttpServletResponse denied = call(this.mvc, "/combo");
			assertThat(denied.getStatus()).isEqualTo(429);
			assertThat(denied.getHeaders("Retry-After")).containsExactly("20");
			assertThat(denied.getHeaders("RateLimit-Limit")).containsExactly("3");
			assertThat(denied.getHeaders("RateLimit-Remaining")).containsExactly("0");
			assertThat(denied.getHeaders("RateLimit-Reset")).containsExactly("20");
		}

	}

	@Nested
	@TestPropertySource(properties = { "ratelimit.header-style=x-ratelimit",
			"ratelimit.key-prefix=http-style-x-ratelimit:" })
	class XRateLimit {

		@Autowired
		private MockMvc mvc;

		@Test
		void allowedAndDeniedResponsesCarryXRateLimitFields() throws Exception {
			MockHttpServletResponse first = call(this.mvc, "/styled");
			assertThat(first.getStatus()).isEqualTo(200);
			assertThat(first.getHeader("X-RateLimit-Limit")).isEqualTo("2");
			assertThat(first.getHeader("X-RateLimit-Remaining")).isEqualTo("1");
			assertThat(first.getHeader("X-RateLimit-Reset")).isEqualTo("30");
			assertThat(first.getHeaderNames()).doesNotContain("RateLimit", "RateLimit-Policy", "RateLimit-Limit");
			call(this.mvc, "/styled");
			MockHttpServletResponse denied = call(this.mvc, "/styled");
			assertThat(denied.getStatus()).isEqualTo(429);
			assertThat(denied.getHeader("Retry-After")).isEqualTo("30");
			assertThat(denied.getHeader("X-RateLimit-Limit")).isEqualTo("2");
			assertThat(denied.getHeader("X-RateLimit-Remaining")).isEqualTo("0");
			assertThat(denied.getHeader("X-RateLimit-Reset")).isEqualTo("30");
			assertThat(denied.getHeaderNames()).doesNotContain("RateLimit", "RateLimit-Policy", "RateLimit-Limit");
		}

	}

	@Nested
	@TestPropertySource(properties = { "ratelimit.header-style=none", "ratelimit.key-prefix=http-style-none:" })
	class None {

		@Autowired
		private MockMvc mvc;

		@Test
		void onlyRetryAfterIsSentAndOnlyOnA429() throws Exception {
			MockHttpServletResponse first = call(this.mvc, "/styled");
			assertThat(first.getStatus()).isEqualTo(200);
			assertThat(first.getHeaderNames()).noneMatch((name) -> name.toLowerCase().contains("ratelimit"))
				.doesNotContain("Retry-After");
			call(this.mvc, "/styled");
			MockHttpServletResponse denied = call(this.mvc, "/styled");
			assertThat(denied.getStatus()).isEqualTo(429);
			assertThat(denied.getHeader("Retry-After")).isEqualTo("30");
			assertThat(denied.getHeader("Cache-Control")).isEqualTo("no-store");
			assertThat(denied.getHeaderNames()).noneMatch((name) -> name.toLowerCase().contains("ratelimit"));
			assertThat(denied.getContentAsString()).contains("\"violated-policies\":[\"styled\"]");
		}

	}

	private static MockHttpServletResponse call(MockMvc mvc, String path) throws Exception {
		return mvc.perform(get(path)).andReturn().getResponse();
	}

}
