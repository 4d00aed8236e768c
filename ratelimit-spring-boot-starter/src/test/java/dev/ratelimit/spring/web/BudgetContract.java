package dev.ratelimit.spring.web;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which requests draw on which budget: limit names, costs. Each test is a client of its own (its own address), written
 * once and run on Spring MVC ({@code MvcBudgetIntegrationTests}) and WebFlux ({@code WebFluxBudgetIntegrationTests}).
 */
public abstract class BudgetContract extends ServerTestSupport {

	@Test
	void endpointsWithTheSameNameShareOneBudget() throws Exception {
		String client = "10.1.0.1";
		// Five of ten tokens (one per 6 s) spent: t is the wait for the next token, not for a full bucket.
		assertThat(from(client, "/api/large").headers().allValues("RateLimit")).containsExactly("\"api\";r=5;t=6");
		HttpResponse<String> second = from(client, "/api/large");
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(second.headers().allValues("RateLimit")).singleElement().asString().startsWith("\"api\";r=0;");
		HttpResponse<String> small = from(client, "/api/small");
		assertThat(small.statusCode()).isEqualTo(429);
		assertThat(small.headers().allValues("RateLimit-Policy")).containsExactly("\"api\";q=10;w=60");
		// One token per 6 s: the cost-1 request waits for one.
		assertThat(small.headers().allValues("Retry-After")).containsExactly("6");
	}

	@Test
	void costOneAndCostFiveDrawOnOneBucket() throws Exception {
		String client = "10.1.0.2";
		assertThat(from(client, "/api/small").headers().allValues("RateLimit")).containsExactly("\"api\";r=9;t=6");
		assertThat(from(client, "/api/large").headers().allValues("RateLimit")).singleElement()
			.asString()
			.startsWith("\"api\";r=4;");
		HttpResponse<String> denied = from(client, "/api/large");
		assertThat(denied.statusCode()).isEqualTo(429);
		// Four tokens left: the fifth comes in 6 s.
		assertThat(denied.headers().allValues("Retry-After")).containsExactly("6");
		assertThat(denied.headers().allValues("RateLimit")).containsExactly("\"api\";r=4;t=6");
		// The denied cost-5 request took nothing: four cost-1 requests still fit.
		for (int remaining = 3; remaining >= 0; remaining--) {
			HttpResponse<String> small = from(client, "/api/small");
			assertThat(small.statusCode()).isEqualTo(200);
			assertThat(small.headers().allValues("RateLimit")).singleElement()
				.asString()
				.startsWith("\"api\";r=" + remaining + ";");
		}
		assertThat(from(client, "/api/small").statusCode()).isEqualTo(429);
	}

	@Test
	void endpointsWithDifferentNamesDoNotShareABudget() throws Exception {
		String client = "10.1.0.3";
		assertThat(from(client, "/alpha").statusCode()).isEqualTo(200);
		HttpResponse<String> beta = from(client, "/beta");
		assertThat(beta.statusCode()).isEqualTo(200);
		assertThat(beta.headers().allValues("RateLimit")).containsExactly("\"beta\";r=0;t=60");
		assertThat(from(client, "/alpha").statusCode()).isEqualTo(429);
		assertThat(from(client, "/beta").statusCode()).isEqualTo(429);
	}

	@Test
	void costFiveEndpointTakesFiveUnitsPerRequest() throws Exception {
		String client = "10.1.0.4";
		HttpResponse<String> first = from(client, "/bulk");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().allValues("RateLimit-Policy")).containsExactly("\"bulk\";q=10;w=60");
		// Five of ten tokens taken, one token per 6 s: full again in 30 s.
		assertThat(first.headers().allValues("RateLimit")).containsExactly("\"bulk\";r=5;t=6");
		HttpResponse<String> second = from(client, "/bulk");
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(second.headers().allValues("RateLimit")).singleElement().asString().startsWith("\"bulk\";r=0;");
		HttpResponse<String> third = from(client, "/bulk");
		assertThat(third.statusCode()).isEqualTo(429);
		// Five tokens missing, one per 6 s.
		assertThat(third.headers().allValues("Retry-After")).containsExactly("30");
		assertThat(third.body()).contains("\"detail\":\"Rate limit 'bulk' exceeded: retry in 30 s\"");
	}

	@Test
	void clientsDoNotShareABudget() throws Exception {
		assertThat(from("10.1.0.5", "/alpha").statusCode()).isEqualTo(200);
		assertThat(from("10.1.0.5", "/alpha").statusCode()).isEqualTo(429);
		assertThat(from("10.1.0.6", "/alpha").statusCode()).isEqualTo(200);
	}

}
