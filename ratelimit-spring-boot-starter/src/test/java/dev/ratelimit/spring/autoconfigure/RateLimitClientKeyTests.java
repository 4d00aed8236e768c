package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.autoconfigure.app.RateLimitTestApplication;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * Client keys from SpEL expressions ({@code /keys/*} allow 2 per minute per key), and what happens when the key is
 * missing. Each test uses client addresses of its own.
 */
@SpringBootTest(classes = RateLimitTestApplication.class)
@AutoConfigureMockMvc
class RateLimitClientKeyTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> TestRedis.shared().url());
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		registry.add("ratelimit.redis.timeout", () -> "10s");
	}

	@Nested
	@TestPropertySource(properties = "ratelimit.key-prefix=http-keys:")
	class FallingBackToTheClientIp {

		@Autowired
		private MockMvc mvc;

		@Test
		void headerKeySeparatesClientsBehindOneAddress() throws Exception {
			String address = "10.2.0.1";
			assertThat(status(get("/keys/api-key").header("X-Api-Key", "key-1"), address)).isEqualTo(200);
			assertThat(status(get("/keys/api-key").header("X-Api-Key", "key-1"), address)).isEqualTo(200);
			assertThat(status(get("/keys/api-key").header("X-Api-Key", "key-1"), address)).isEqualTo(429);
			assertThat(status(get("/keys/api-key").header("X-Api-Key", "key-2"), address)).isEqualTo(200);
		}

		@Test
		void missingKeyHeaderFallsBackToTheClientIp() throws Exception {
			assertThat(status(get("/keys/api-key"), "10.2.0.2")).isEqualTo(200);
			assertThat(status(get("/keys/api-key"), "10.2.0.2")).isEqualTo(200);
			assertThat(status(get("/keys/api-key"), "10.2.0.2")).isEqualTo(429);
			// Not one shared bucket for every request without the header: another address has its own.
			assertThat(status(get("/keys/api-key"), "10.2.0.3")).isEqualTo(200);
			// The header's key is another budget than the address.
			assertThat(status(get("/keys/api-key").header("X-Api-Key", "key-3"), "10.2.0.2")).isEqualTo(200);
		}

		@Test
		void emptyKeyHeaderFallsBackToTheClientIp() throws Exception {
			assertThat(status(get("/keys/api-key").header("X-Api-Key", ""), "10.2.0.4")).isEqualTo(200);
			assertThat(status(get("/keys/api-key"), "10.2.0.4")).isEqualTo(200);
			assertThat(status(get("/keys/api-key").header("X-Api-Key", ""), "10.2.0.4")).isEqualTo(429);
			assertThat(status(get("/keys/api-key").header("X-Api-Key", ""), "10.2.0.5")).isEqualTo(200);
		}

		@Test
		void keyExpressionThatFailsFallsBackToTheClientIpInsteadOfA500() throws Exception {
			assertThat(status(get("/keys/failing"), "10.2.0.6")).isEqualTo(200);
			assertThat(status(get("/keys/failing"), "10.2.0.6")).isEqualTo(200);
			assertThat(status(get("/keys/failing"), "10.2.0.6")).isEqualTo(429);
			assertThat(status(get("/keys/failing"), "10.2.0.7")).isEqualTo(200);
		}

		@Test
		void beanThatThrowsInTheKeyExpressionFallsBackToTheClientIpInsteadOfA500() throws Exception {
			assertThat(status(get("/keys/throwing-bean"), "10.2.0.16")).isEqualTo(200);
			assertThat(status(get("/keys/throwing-bean"), "10.2.0.16")).isEqualTo(200);
			assertThat(status(get("/keys/throwing-bean"), "10.2.0.16")).isEqualTo(429);
			assertThat(status(get("/keys/throwing-bean").header("X-Tenant", "acme"), "10.2.0.16")).isEqualTo(200);
		}

		@Test
		void methodArgumentByNameIsTheKey() throws Exception {
			String address = "10.2.0.8";
			assertThat(status(get("/keys/users/alice"), address)).isEqualTo(200);
			assertThat(status(get("/keys/users/alice"), address)).isEqualTo(200);
			assertThat(status(get("/keys/users/alice"), address)).isEqualTo(429);
			assertThat(status(get("/keys/users/bob"), address)).isEqualTo(200);
			// Alice is limited as a user, from any address.
			assertThat(status(get("/keys/users/alice"), "10.2.0.9")).isEqualTo(429);
		}

		@Test
		void beanReferenceComputesTheKey() throws Exception {
			String address = "10.2.0.10";
			MockHttpServletResponse first = call(get("/keys/tenant").header("X-Tenant", "Acme"), address);
			assertThat(first.getHeader("RateLimit")).startsWith("\"by-tenant\";r=1;");
			// The resolver ignores case and blanks: the same tenant, the same budget.
			MockHttpServletResponse second = call(get("/keys/tenant").header("X-Tenant", " acme "), "10.2.0.11");
			assertThat(second.getHeader("RateLimit")).startsWith("\"by-tenant\";r=0;");
			assertThat(status(get("/keys/tenant").header("X-Tenant", "ACME"), "10.2.0.12")).isEqualTo(429);
			assertThat(status(get("/keys/tenant").header("X-Tenant", "globex"), address)).isEqualTo(200);
		}

		@Test
		void principalNameIsTheKey() throws Exception {
			String address = "10.2.0.13";
			assertThat(status(get("/keys/principal").principal(() -> "carol"), address)).isEqualTo(200);
			assertThat(status(get("/keys/principal").principal(() -> "carol"), "10.2.0.14")).isEqualTo(200);
			assertThat(status(get("/keys/principal").principal(() -> "carol"), "10.2.0.15")).isEqualTo(429);
			assertThat(status(get("/keys/principal").principal(() -> "dave"), address)).isEqualTo(200);
			// Anonymous: by address.
			assertThat(status(get("/keys/principal"), address)).isEqualTo(200);
		}

		private int status(MockHttpServletRequestBuilder request, String address) throws Exception {
			return call(request, address).getStatus();
		}

		private MockHttpServletResponse call(MockHttpServletRequestBuilder request, String address) throws Exception {
			return RateLimitClientKeyTests.call(this.mvc, request, address);
		}

	}

	@Nested
	@TestPropertySource(properties = { "ratelimit.missing-key=reject", "ratelimit.key-prefix=http-keys-reject:" })
	class RejectingAMissingKey {

		@Autowired
		private MockMvc mvc;

		@Test
		void missingKeyIsABadRequestProblem() throws Exception {
			MockHttpServletResponse response = call(this.mvc, get("/keys/api-key"), "10.2.1.1");
			assertThat(response.getStatus()).isEqualTo(400);
			assertThat(response.getContentType()).isEqualTo("application/problem+json");
			assertThat(response.getHeaderNames()).noneMatch((name) -> name.startsWith("RateLimit"))
				.doesNotContain("Retry-After");
			JSONAssert.assertEquals("""
					{"title":"Bad Request","status":400,
					 "detail":"The request lacks the client key of rate limit 'by-api-key'",
					 "instance":"/keys/api-key"}""", response.getContentAsString(), JSONCompareMode.STRICT);
		}

		@Test
		void keyExpressionThatFailsIsABadRequestInsteadOfA500() throws Exception {
			assertThat(call(this.mvc, get("/keys/failing"), "10.2.1.2").getStatus()).isEqualTo(400);
		}

		@Test
		void requestWithTheKeyIsLimitedAsUsual() throws Exception {
			MockHttpServletResponse response = call(this.mvc, get("/keys/api-key").header("X-Api-Key", "key-4"),
					"10.2.1.3");
			assertThat(response.getStatus()).isEqualTo(200);
			assertThat(response.getHeader("RateLimit")).startsWith("\"by-api-key\";r=1;");
		}

		@Test
		void limitsWithoutKeyExpressionStillUseTheClientIp() throws Exception {
			assertThat(call(this.mvc, get("/alpha"), "10.2.1.4").getStatus()).isEqualTo(200);
			assertThat(call(this.mvc, get("/alpha"), "10.2.1.4").getStatus()).isEqualTo(429);
		}

	}

	private static MockHttpServletResponse call(MockMvc mvc, MockHttpServletRequestBuilder request, String address)
			throws Exception {
		return mvc.perform(request.with((servletRequest) -> {
			servletRequest.setRemoteAddr(address);
			return servletRequest;
		})).andReturn().getResponse();
	}

}
