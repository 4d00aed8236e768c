package dev.ratelimit.spring.web;

import java.net.http.HttpResponse;
import java.util.Locale;

import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.header-style}: the older header forms and none at all; {@code Retry-After} on every 429 whatever the
 * style. {@code /styled} allows 2 per minute (a token every 30 s); {@code /combo} has a filter rule of 5 per minute on
 * top of its annotation of 3. One configuration per style, written once and run on Spring MVC
 * ({@code MvcHeaderStyleIntegrationTests}) and WebFlux ({@code WebFluxHeaderStyleIntegrationTests}) as their
 * {@code @Nested} classes.
 */
public final class HeaderStyleContract {

	private HeaderStyleContract() {
	}

	@TestPropertySource(properties = { "ratelimit.filter.rules[0].name=edge", "ratelimit.filter.rules[0].paths=/combo",
			"ratelimit.filter.rules[0].limit=5" })
	public abstract static class Style extends ServerTestSupport {

		/** Header field names are case-insensitive: none of {@code fields}, in any case. */
		static void assertAbsent(HttpResponse<String> response, String... fields) {
			for (String field : fields) {
				assertThat(response.headers().firstValue(field)).as(field).isEmpty();
			}
		}

		static void assertNoFieldNamedRateLimit(HttpResponse<String> response) {
			assertThat(response.headers().map().keySet())
				.noneMatch((name) -> name.toLowerCase(Locale.ROOT).contains("ratelimit"));
		}

	}

	@TestPropertySource(properties = "ratelimit.header-style=legacy")
	public abstract static class Legacy extends Style {

		@Test
		void allowedAndDeniedResponsesCarryLimitRemainingAndReset() throws Exception {
			HttpResponse<String> first = get("/styled");
			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.headers().allValues("RateLimit-Limit")).containsExactly("2");
			assertThat(first.headers().allValues("RateLimit-Remaining")).containsExactly("1");
			assertThat(first.headers().allValues("RateLimit-Reset")).containsExactly("30");
			assertAbsent(first, "RateLimit", "RateLimit-Policy", "X-RateLimit-Limit");
			assertThat(get("/styled").headers().allValues("RateLimit-Remaining")).containsExactly("0");
			HttpResponse<String> denied = get("/styled");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(denied.headers().allValues("Retry-After")).containsExactly("30");
			assertThat(denied.headers().allValues("RateLimit-Limit")).containsExactly("2");
			assertThat(denied.headers().allValues("RateLimit-Remaining")).containsExactly("0");
			assertThat(denied.headers().allValues("RateLimit-Reset")).containsExactly("30");
			assertAbsent(denied, "RateLimit", "RateLimit-Policy");
			assertThat(denied.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		}

		@Test
		void singleValuedFieldsShowTheMostRestrictiveLimit() throws Exception {
			HttpResponse<String> first = get("/combo");
			assertThat(first.statusCode()).isEqualTo(200);
			// edge (filter rule) has 4 of 5 left, combo (annotation) 2 of 3: combo is the most restrictive.
			assertThat(first.headers().allValues("RateLimit-Limit")).containsExactly("3");
			assertThat(first.headers().allValues("RateLimit-Remaining")).containsExactly("2");
			assertThat(first.headers().allValues("RateLimit-Reset")).containsExactly("20");
			get("/combo");
			get("/combo");
			HttpResponse<String> denied = get("/combo");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(denied.headers().allValues("Retry-After")).containsExactly("20");
			assertThat(denied.headers().allValues("RateLimit-Limit")).containsExactly("3");
			assertThat(denied.headers().allValues("RateLimit-Remaining")).containsExactly("0");
			assertThat(denied.headers().allValues("RateLimit-Reset")).containsExactly("20");
		}

	}

	@TestPropertySource(properties = "ratelimit.header-style=x-ratelimit")
	public abstract static class XRateLimit extends Style {

		@Test
		void allowedAndDeniedResponsesCarryXRateLimitFields() throws Exception {
			HttpResponse<String> first = get("/styled");
			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.headers().allValues("X-RateLimit-Limit")).containsExactly("2");
			assertThat(first.headers().allValues("X-RateLimit-Remaining")).containsExactly("1");
			assertThat(first.headers().allValues("X-RateLimit-Reset")).containsExactly("30");
			assertAbsent(first, "RateLimit", "RateLimit-Policy", "RateLimit-Limit");
			get("/styled");
			HttpResponse<String> denied = get("/styled");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(denied.headers().allValues("Retry-After")).containsExactly("30");
			assertThat(denied.headers().allValues("X-RateLimit-Limit")).containsExactly("2");
			assertThat(denied.headers().allValues("X-RateLimit-Remaining")).containsExactly("0");
			assertThat(denied.headers().allValues("X-RateLimit-Reset")).containsExactly("30");
			assertAbsent(denied, "RateLimit", "RateLimit-Policy", "RateLimit-Limit");
		}

	}

	@TestPropertySource(properties = "ratelimit.header-style=none")
	public abstract static class None extends Style {

		@Test
		void onlyRetryAfterIsSentAndOnlyOnA429() throws Exception {
			HttpResponse<String> first = get("/styled");
			assertThat(first.statusCode()).isEqualTo(200);
			assertNoFieldNamedRateLimit(first);
			assertThat(first.headers().firstValue("Retry-After")).isEmpty();
			get("/styled");
			HttpResponse<String> denied = get("/styled");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(denied.headers().allValues("Retry-After")).containsExactly("30");
			assertThat(denied.headers().allValues("Cache-Control")).containsExactly("no-store");
			assertNoFieldNamedRateLimit(denied);
			assertThat(denied.body()).contains("\"violated-policies\":[\"styled\"]");
		}

	}

}
