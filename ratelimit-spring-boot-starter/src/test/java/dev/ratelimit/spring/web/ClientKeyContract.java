package dev.ratelimit.spring.web;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client keys from SpEL expressions ({@code /keys/*} allow 2 per minute per key), and what happens when the key is
 * missing: two configurations, written once and run on Spring MVC ({@code MvcClientKeyIntegrationTests}) and WebFlux
 * ({@code WebFluxClientKeyIntegrationTests}) as their {@code @Nested} classes. Each test uses client addresses of its
 * own. The principal is the user named by {@code X-User} ({@code ServletPrincipalFilter},
 * {@code ReactivePrincipalFilter}).
 */
public final class ClientKeyContract {

	private ClientKeyContract() {
	}

	public abstract static class FallingBackToTheClientIp extends ServerTestSupport {

		@Test
		void headerKeySeparatesClientsBehindOneAddress() throws Exception {
			String address = "10.2.0.1";
			assertThat(status(address, "/keys/api-key", "X-Api-Key", "key-1")).isEqualTo(200);
			assertThat(status(address, "/keys/api-key", "X-Api-Key", "key-1")).isEqualTo(200);
			assertThat(status(address, "/keys/api-key", "X-Api-Key", "key-1")).isEqualTo(429);
			assertThat(status(address, "/keys/api-key", "X-Api-Key", "key-2")).isEqualTo(200);
		}

		@Test
		void theKeyHelpersKeyByTheHeaderAndTheQueryParameterOnEveryStack() throws Exception {
			String address = "10.2.0.21";
			assertThat(status(address, "/keys/helper-header", "X-Api-Key", "key-21")).isEqualTo(200);
			assertThat(status(address, "/keys/helper-header", "X-Api-Key", "key-21")).isEqualTo(200);
			assertThat(status(address, "/keys/helper-header", "X-Api-Key", "key-21")).isEqualTo(429);
			assertThat(status(address, "/keys/helper-header", "X-Api-Key", "key-22")).as("another key, one address")
				.isEqualTo(200);
			assertThat(status(address, "/keys/helper-query?tenant=acme%20eu")).isEqualTo(200);
			assertThat(status("10.2.0.22", "/keys/helper-query?page=2&tenant=acme+eu")).as("the same tenant")
				.isEqualTo(200);
			assertThat(status("10.2.0.23", "/keys/helper-query?tenant=acme%20eu")).isEqualTo(429);
			assertThat(status("10.2.0.23", "/keys/helper-query?tenant=globex")).isEqualTo(200);
			assertThat(status("10.2.0.24", "/keys/helper-query")).as("no tenant: by address").isEqualTo(200);
		}

		@Test
		void missingKeyHeaderFallsBackToTheClientIp() throws Exception {
			assertThat(status("10.2.0.2", "/keys/api-key")).isEqualTo(200);
			assertThat(status("10.2.0.2", "/keys/api-key")).isEqualTo(200);
			assertThat(status("10.2.0.2", "/keys/api-key")).isEqualTo(429);
			// Not one shared bucket for every request without the header: another address has its own.
			assertThat(status("10.2.0.3", "/keys/api-key")).isEqualTo(200);
			// The header's key is another budget than the address.
			assertThat(status("10.2.0.2", "/keys/api-key", "X-Api-Key", "key-3")).isEqualTo(200);
		}

		@Test
		void emptyKeyHeaderFallsBackToTheClientIp() throws Exception {
			assertThat(status("10.2.0.4", "/keys/api-key", "X-Api-Key", "")).isEqualTo(200);
			assertThat(status("10.2.0.4", "/keys/api-key")).isEqualTo(200);
			assertThat(status("10.2.0.4", "/keys/api-key", "X-Api-Key", "")).isEqualTo(429);
			assertThat(status("10.2.0.5", "/keys/api-key", "X-Api-Key", "")).isEqualTo(200);
		}

		@Test
		void keyExpressionThatFailsFallsBackToTheClientIpInsteadOfA500() throws Exception {
			assertThat(status("10.2.0.6", "/keys/failing")).isEqualTo(200);
			assertThat(status("10.2.0.6", "/keys/failing")).isEqualTo(200);
			assertThat(status("10.2.0.6", "/keys/failing")).isEqualTo(429);
			assertThat(status("10.2.0.7", "/keys/failing")).isEqualTo(200);
		}

		@Test
		void beanThatThrowsInTheKeyExpressionFallsBackToTheClientIpInsteadOfA500() throws Exception {
			assertThat(status("10.2.0.16", "/keys/throwing-bean")).isEqualTo(200);
			assertThat(status("10.2.0.16", "/keys/throwing-bean")).isEqualTo(200);
			assertThat(status("10.2.0.16", "/keys/throwing-bean")).isEqualTo(429);
			assertThat(status("10.2.0.16", "/keys/throwing-bean", "X-Tenant", "acme")).isEqualTo(200);
		}

		@Test
		void methodArgumentByNameIsTheKey() throws Exception {
			String address = "10.2.0.8";
			assertThat(status(address, "/keys/users/alice")).isEqualTo(200);
			assertThat(status(address, "/keys/users/alice")).isEqualTo(200);
			assertThat(status(address, "/keys/users/alice")).isEqualTo(429);
			assertThat(status(address, "/keys/users/bob")).isEqualTo(200);
			// Alice is limited as a user, from any address.
			assertThat(status("10.2.0.9", "/keys/users/alice")).isEqualTo(429);
		}

		@Test
		void beanReferenceComputesTheKey() throws Exception {
			String address = "10.2.0.10";
			HttpResponse<String> first = from(address, "/keys/tenant", "X-Tenant", "Acme");
			assertThat(first.headers().allValues("RateLimit")).singleElement()
				.asString()
				.startsWith("\"by-tenant\";r=1;");
			// The resolver ignores case (the blanks around a header value never reach the application: HTTP strips
			// them): the same tenant, the same budget.
			HttpResponse<String> second = from("10.2.0.11", "/keys/tenant", "X-Tenant", " acme ");
			assertThat(second.headers().allValues("RateLimit")).singleElement()
				.asString()
				.startsWith("\"by-tenant\";r=0;");
			assertThat(status("10.2.0.12", "/keys/tenant", "X-Tenant", "ACME")).isEqualTo(429);
			assertThat(status(address, "/keys/tenant", "X-Tenant", "globex")).isEqualTo(200);
		}

		@Test
		void principalNameIsTheKey() throws Exception {
			String address = "10.2.0.13";
			assertThat(status(address, "/keys/principal", "X-User", "carol")).isEqualTo(200);
			assertThat(status("10.2.0.14", "/keys/principal", "X-User", "carol")).isEqualTo(200);
			assertThat(status("10.2.0.15", "/keys/principal", "X-User", "carol")).isEqualTo(429);
			assertThat(status(address, "/keys/principal", "X-User", "dave")).isEqualTo(200);
			// Anonymous: by address.
			assertThat(status(address, "/keys/principal")).isEqualTo(200);
		}

		private int status(String address, String path, String... headers) throws IOException, InterruptedException {
			return from(address, path, headers).statusCode();
		}

	}

	@TestPropertySource(properties = "ratelimit.missing-key=reject")
	public abstract static class RejectingAMissingKey extends ServerTestSupport {

		@Test
		void missingKeyIsABadRequestProblem() throws Exception {
			HttpResponse<String> response = from("10.2.1.1", "/keys/api-key");
			assertThat(response.statusCode()).isEqualTo(400);
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(response.headers().map().keySet())
				.noneMatch((name) -> name.toLowerCase(Locale.ROOT).startsWith("ratelimit"));
			assertThat(response.headers().firstValue("Retry-After")).isEmpty();
			JSONAssert.assertEquals("""
					{"title":"Bad Request","status":400,
					 "detail":"The request lacks the client key of rate limit 'by-api-key'",
					 "instance":"/keys/api-key"}""", response.body(), JSONCompareMode.STRICT);
		}

		@Test
		void keyExpressionThatFailsIsABadRequestInsteadOfA500() throws Exception {
			assertThat(from("10.2.1.2", "/keys/failing").statusCode()).isEqualTo(400);
		}

		@Test
		void requestWithTheKeyIsLimitedAsUsual() throws Exception {
			HttpResponse<String> response = from("10.2.1.3", "/keys/api-key", "X-Api-Key", "key-4");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().allValues("RateLimit")).singleElement()
				.asString()
				.startsWith("\"by-api-key\";r=1;");
		}

		@Test
		void limitsWithoutKeyExpressionStillUseTheClientIp() throws Exception {
			assertThat(from("10.2.1.4", "/alpha").statusCode()).isEqualTo(200);
			assertThat(from("10.2.1.4", "/alpha").statusCode()).isEqualTo(429);
		}

	}

}
