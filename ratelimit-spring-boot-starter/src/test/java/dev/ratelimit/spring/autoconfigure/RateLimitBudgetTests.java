package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.autoconfigure.app.RateLimitTestApplication;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * Which requests draw on which budget: limit names, costs. Each test is a client of its own (its own IP address).
 */
@SpringBootTest(classes = RateLimitTestApplication.class, properties = "ratelimit.key-prefix=http-budget:")
@AutoConfigureMockMvc
class RateLimitBudgetTests {

	@Autowired
	private MockMvc mvc;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> TestRedis.shared().url());
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		registry.add("ratelimit.redis.timeout", () -> "10s");
	}

	@Test
	void endpointsWithTheSameNameShareOneBudget() throws Exception {
		String client = "10.1.0.1";
		// Five of ten tokens (one per 6 s) spent: t is the wait for the next token, not for a full bucket.
		assertThat(call("/api/large", client).getHeader("RateLimit")).isEqualTo("\"api\";r=5;t=6");
		MockHttpServletResponse second = call("/api/large", client);
		assertThat(second.getStatus()).isEqualTo(200);
		assertThat(second.getHeader("RateLimit")).startsWith("\"api\";r=0;");
		MockHttpServletResponse small = call("/api/small", client);
		assertThat(small.getStatus()).isEqualTo(429);
		assertThat(small.getHeader("RateLimit-Policy")).isEqualTo("\"api\";q=10;w=60");
		// One token per 6 s: the cost-1 request waits for one.
		assertThat(small.getHeader("Retry-After")).isEqualTo("6");
	}

	@Test
	void costOneAndCostFiveDrawOnOneBucket() throws Exception {
		String client = "10.1.0.2";
		assertThat(call("/api/small", client).getHeader("RateLimit")).isEqualTo("\"api\";r=9;t=6");
		assertThat(call("/api/large", client).getHeader("RateLimit")).startsWith("\"api\";r=4;");
		MockHttpServletResponse denied = call("/api/large", client);
		assertThat(denied.getStatus()).isEqualTo(429);
		// Four tokens left: the fifth comes in 6 s.
		assertThat(denied.getHeader("Retry-After")).isEqualTo("6");
		assertThat(denied.getHeader("RateLimit")).isEqualTo("\"api\";r=4;t=6");
		// The denied cost-5 request took nothing: four cost-1 requests still fit.
		for (int remaining = 3; remaining >= 0; remaining--) {
			MockHttpServletResponse small = call("/api/small", client);
			assertThat(small.getStatus()).isEqualTo(200);
			assertThat(small.getHeader("RateLimit")).startsWith("\"api\";r=" + remaining + ";");
		}
		assertThat(call("/api/small", client).getStatus()).isEqualTo(429);
	}

	@Test
	void endpointsWithDifferentNamesDoNotShareABudget() throws Exception {
		String client = "10.1.0.3";
		assertThat(call("/alpha", client).getStatus()).isEqualTo(200);
		MockHttpServletResponse beta = call("/beta", client);
		assertThat(beta.getStatus()).isEqualTo(200);
		assertThat(beta.getHeader("RateLimit")).isEqualTo("\"beta\";r=0;t=60");
		assertThat(call("/alpha", client).getStatus()).isEqualTo(429);
		assertThat(call("/beta", client).getStatus()).isEqualTo(429);
	}

	@Test
	void costFiveEndpointTakesFiveUnitsPerRequest() throws Exception {
		String client = "10.1.0.4";
		MockHttpServletResponse first = call("/bulk", client);
		assertThat(first.getStatus()).isEqualTo(200);
		assertThat(first.getHeader("RateLimit-Policy")).isEqualTo("\"bulk\";q=10;w=60");
		// Five of ten tokens taken, one token per 6 s: full again in 30 s.
		assertThat(first.getHeader("RateLimit")).isEqualTo("\"bulk\";r=5;t=6");
		MockHttpServletResponse second = call("/bulk", client);
		assertThat(second.getStatus()).isEqualTo(200);
		assertThat(second.getHeader("RateLimit")).startsWith("\"bulk\";r=0;");
		MockHttpServletResponse third = call("/bulk", client);
		assertThat(third.getStatus()).isEqualTo(429);
		// Five tokens missing, one per 6 s.
		assertThat(third.getHeader("Retry-After")).isEqualTo("30");
		assertThat(third.getContentAsString()).contains("\"detail\":\"Rate limit 'bulk' exceeded: retry in 30 s\"");
	}

	@Test
	void clientsDoNotShareABudget() throws Exception {
		assertThat(call("/alpha", "10.1.0.5").getStatus()).isEqualTo(200);
		assertThat(call("/alpha", "10.1.0.5").getStatus()).isEqualTo(429);
		assertThat(call("/alpha", "10.1.0.6").getStatus()).isEqualTo(200);
	}

	private MockHttpServletResponse call(String path, String clientAddress) throws Exception {
		return this.mvc.perform(get(path).with((request) -> {
			request.setRemoteAddr(clientAddress);
			return request;
		})).andReturn().getResponse();
	}

}
