package dev.ratelimit.spring.web.servlet;

import java.net.http.HttpResponse;

import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.HttpContract;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HttpContract} on Spring MVC (the test class path has WebFlux too, as an application using
 * {@code WebClient} would: it stays a servlet application), and what only a servlet container has: error, forward
 * and async dispatches of one request, charged once.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "ratelimit.key-prefix=http-contract-mvc:")
class MvcHttpContractIntegrationTests extends HttpContract {

	@Test
	void controllerThatThrowsIsChargedOnce() throws Exception {
		HttpResponse<String> failed = get("/dispatch/boom?fail=true");
		assertThat(failed.statusCode()).isEqualTo(500);
		HttpResponse<String> next = get("/dispatch/boom");
		assertThat(next.statusCode()).isEqualTo(200);
		assertThat(items(next, "RateLimit")).containsExactly("\"boom-rule\";r=8", "\"boom-annotated\";r=8");
	}

	@Test
	void forwardedRequestIsChargedOnce() throws Exception {
		HttpResponse<String> first = get("/dispatch/forward");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("target");
		assertThat(items(first, "RateLimit")).containsExactly("\"forward-rule\";r=9", "\"forward-annotated\";r=9",
				"\"target-annotated\";r=9");
		HttpResponse<String> second = get("/dispatch/forward");
		assertThat(items(second, "RateLimit")).containsExactly("\"forward-rule\";r=8", "\"forward-annotated\";r=8",
				"\"target-annotated\";r=8");
	}

	@Test
	void callableRequestIsChargedOnce() throws Exception {
		HttpResponse<String> first = get("/dispatch/callable");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("callable");
		assertThat(items(first, "RateLimit")).containsExactly("\"callable-rule\";r=9", "\"callable-annotated\";r=9");
		HttpResponse<String> second = get("/dispatch/callable");
		assertThat(items(second, "RateLimit")).containsExactly("\"callable-rule\";r=8", "\"callable-annotated\";r=8");
	}

	@Test
	void deferredResultRequestIsChargedOnce() throws Exception {
		HttpResponse<String> first = get("/dispatch/deferred");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("deferred");
		assertThat(items(first, "RateLimit")).containsExactly("\"deferred-rule\";r=9", "\"deferred-annotated\";r=9");
		HttpResponse<String> second = get("/dispatch/deferred");
		assertThat(items(second, "RateLimit")).containsExactly("\"deferred-rule\";r=8", "\"deferred-annotated\";r=8");
	}

}
