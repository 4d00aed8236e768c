package dev.ratelimit.spring.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import java.util.ArrayList;

import org.junit.jupiter.api.Test;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP contract (docs/HTTP.md) seen by a real client of a real server, with the auto-configured limiter on the
 * Redis server's clock, written once and run on Spring MVC ({@code MvcHttpContractIntegrationTests}) and on WebFlux
 * ({@code WebFluxHttpContractIntegrationTests}), each with a key prefix of its own, and once more on each with
 * {@code ratelimit.store=in-memory} ({@code InMemoryMvcHttpContractIntegrationTests},
 * {@code InMemoryWebFluxHttpContractIntegrationTests}). Every limit is a token bucket of whole minutes, so the few ms
 * between requests never add a token and the expected numbers are exact.
 */
@TestPropertySource(properties = { SharedRedis.URL,
				"ratelimit.filter.rules[0].name=edge", "ratelimit.filter.rules[0].paths=/combo",
				"ratelimit.filter.rules[0].limit=5",
				"ratelimit.filter.rules[1].name=boom-rule",
				// The error page too: the error dispatch of a failed request must not be charged again.
				"ratelimit.filter.rules[1].paths=/dispatch/boom,/error",
				"ratelimit.filter.rules[1].limit=10",
				"ratelimit.filter.rules[2].name=forward-rule",
				"ratelimit.filter.rules[2].paths=/dispatch/forward,/dispatch/target",
				"ratelimit.filter.rules[2].limit=10",
				"ratelimit.filter.rules[3].name=callable-rule", "ratelimit.filter.rules[3].paths=/dispatch/callable",
				"ratelimit.filter.rules[3].limit=10",
				"ratelimit.filter.rules[4].name=deferred-rule", "ratelimit.filter.rules[4].paths=/dispatch/deferred",
				"ratelimit.filter.rules[4].limit=10",
				"ratelimit.filter.rules[5].name=plain-rule", "ratelimit.filter.rules[5].paths=/plain",
				"ratelimit.filter.rules[5].methods=GET", "ratelimit.filter.rules[5].limit=1",
				"ratelimit.filter.rules[6].name=plain-html-rule", "ratelimit.filter.rules[6].paths=/plain-html",
				"ratelimit.filter.rules[6].limit=1",
				"ratelimit.filter.rules[7].name=preflight-rule", "ratelimit.filter.rules[7].paths=/plain-cors",
				"ratelimit.filter.rules[7].limit=1",
				"ratelimit.filter.rules[8].name=get-rule", "ratelimit.filter.rules[8].paths=/plain-get",
				"ratelimit.filter.rules[8].methods=GET", "ratelimit.filter.rules[8].limit=1",
				"ratelimit.filter.rules[9].name=daily-rule", "ratelimit.filter.rules[9].paths=/plain-daily",
				"ratelimit.filter.rules[9].limit=1", "ratelimit.filter.rules[9].period=day",
				"ratelimit.filter.rules[9].zone=Pacific/Auckland" })
public abstract class HttpContract {

	static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		SharedRedis.register(registry);
	}

	@Test
	void allowedResponseCarriesPolicyAndRemainingInIetfStyle() throws Exception {
		HttpResponse<String> first = get("/styled");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("styled");
		assertThat(first.headers().allValues("RateLimit-Policy")).containsExactly("\"styled\";q=2;w=60");
		// A fresh bucket of 2 per minute less one token: full again in 30 s.
		assertThat(first.headers().allValues("RateLimit")).containsExactly("\"styled\";r=1;t=30");
		assertThat(first.headers().firstValue("Retry-After")).isEmpty();
		assertThat(first.headers().firstValue("RateLimit-Limit")).isEmpty();
		HttpResponse<String> second = get("/styled");
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(second.headers().allValues("RateLimit")).singleElement().asString().startsWith("\"styled\";r=0;t=");
	}

	@Test
	void deniedResponseIsAProblemWithRetryAfterEqualToTheViolatedPolicysT() throws Exception {
		for (int remaining = 2; remaining >= 0; remaining--) {
			HttpResponse<String> allowed = get("/reports");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().allValues("RateLimit")).singleElement()
				.asString()
				.startsWith("\"reports\";r=" + remaining + ";");
		}
		HttpResponse<String> denied = get("/reports");
		assertThat(denied.statusCode()).isEqualTo(429);
		// One token per 20 s; the bucket emptied a few ms ago.
		assertThat(denied.headers().allValues("Retry-After")).containsExactly("20");
		assertThat(denied.headers().allValues("RateLimit-Policy")).containsExactly("\"reports\";q=3;w=60");
		assertThat(denied.headers().allValues("RateLimit")).containsExactly("\"reports\";r=0;t=20");
		assertThat(denied.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(denied.headers().allValues("Cache-Control")).containsExactly("no-store");
		JSONAssert.assertEquals("""
				{"type":"%s","title":"Too Many Requests","status":429,
				 "detail":"Rate limit 'reports' exceeded: retry in 20 s",
				 "instance":"/reports","violated-policies":["reports"]}""".formatted(QUOTA_EXCEEDED), denied.body(),
				JSONCompareMode.STRICT);
	}

	@Test
	void filterRuleDenialIsTheSameProblem() throws Exception {
		HttpResponse<String> allowed = get("/plain");
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(allowed.headers().allValues("RateLimit-Policy")).containsExactly("\"plain-rule\";q=1;w=60");
		assertThat(allowed.headers().allValues("RateLimit")).containsExactly("\"plain-rule\";r=0;t=60");
		HttpResponse<String> denied = get("/plain?page=2");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().allValues("Retry-After")).containsExactly("60");
		assertThat(denied.headers().allValues("RateLimit-Policy")).containsExactly("\"plain-rule\";q=1;w=60");
		assertThat(denied.headers().allValues("RateLimit")).containsExactly("\"plain-rule\";r=0;t=60");
		assertThat(denied.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(denied.headers().allValues("Cache-Control")).containsExactly("no-store");
		JSONAssert.assertEquals("""
				{"type":"%s","title":"Too Many Requests","status":429,
				 "detail":"Rate limit 'plain-rule' exceeded: retry in 60 s",
				 "instance":"/plain","violated-policies":["plain-rule"]}""".formatted(QUOTA_EXCEEDED), denied.body(),
				JSONCompareMode.STRICT);
	}

	@Test
	void deniedRequestThatAcceptsOnlyHtmlIsStillA429WithRetryAfter() throws Exception {
		// An annotated handler and a filter rule, both on handlers that produce HTML only.
		for (String path : List.of("/html", "/plain-html")) {
			HttpRequest.Builder browser = HttpRequest.newBuilder(uri(path)).header("Accept", "text/html");
			assertThat(send(browser).statusCode()).isEqualTo(200);
			HttpResponse<String> denied = send(browser);
			assertThat(denied.statusCode()).as(path).isEqualTo(429);
			assertThat(denied.headers().allValues("Retry-After")).as(path).containsExactly("60");
			assertThat(denied.headers().allValues("Cache-Control")).as(path).containsExactly("no-store");
			assertThat(denied.headers().firstValue("Content-Type")).as(path).hasValue("application/problem+json");
			assertThat(denied.body()).as(path).contains("\"status\":429");
		}
	}

	@Test
	void filterRuleOnGetCoversHeadButNoOtherMethod() throws Exception {
		HttpResponse<String> post = send(HttpRequest.newBuilder(uri("/plain-get")).POST(HttpRequest.BodyPublishers.noBody()));
		assertThat(post.statusCode()).isEqualTo(405);
		assertThat(post.headers().firstValue("RateLimit")).isEmpty();
		// Spring MVC answers HEAD with the GET handler, so the GET rule charges it: its one unit is gone.
		HttpResponse<String> head = send(HttpRequest.newBuilder(uri("/plain-get")).method("HEAD",
				HttpRequest.BodyPublishers.noBody()));
		assertThat(head.statusCode()).isEqualTo(200);
		assertThat(head.headers().firstValue("RateLimit")).hasValueSatisfying((value) -> assertThat(value).startsWith("\"get-rule\";r=0;"));
		assertThat(get("/plain-get").statusCode()).isEqualTo(429);
	}

	@Test
	void concurrentBurstIsLimitedExactlyWithAHealthyRedis() throws Exception {
		// More simultaneous requests than Boot's default pool of 8 connections: none may be let through as if Redis
		// had failed.
		List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
		for (int i = 0; i < 96; i++) {
			burst.add(this.client.sendAsync(HttpRequest.newBuilder(uri("/burst")).build(),
					HttpResponse.BodyHandlers.ofString()));
		}
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> response : burst) {
			responses.add(response.get(30, TimeUnit.SECONDS));
		}
		assertThat(responses).filteredOn((response) -> response.statusCode() == 200).hasSize(5)
			.allSatisfy((response) -> assertThat(response.headers().firstValue("RateLimit")).isPresent());
		assertThat(responses).filteredOn((response) -> response.statusCode() == 429).hasSize(91);
	}

	@Test
	void corsPreflightIsNotCharged() throws Exception {
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> preflight = send(HttpRequest.newBuilder(uri("/plain-cors"))
				.method("OPTIONS", HttpRequest.BodyPublishers.noBody())
				.header("Origin", "https://example.org")
				.header("Access-Control-Request-Method", "GET"));
			assertThat(preflight.statusCode()).isNotEqualTo(429);
			assertThat(preflight.headers().firstValue("RateLimit")).isEmpty();
		}
		HttpResponse<String> response = get("/plain-cors");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().allValues("RateLimit")).containsExactly("\"preflight-rule\";r=0;t=60");
	}

	/**
	 * A daily quota in Auckland: its fields count to the next midnight there, as the JVM's clock and the zone's rules
	 * place it (the wall clock is the behaviour here: a few seconds of margin for Redis' clock and a loaded machine),
	 * and its policy's window is the day's nominal length.
	 */
	@Test
	void aDailyQuotaInAZoneCountsToMidnightThere() throws Exception {
		ZoneId auckland = ZoneId.of("Pacific/Auckland");
		long before = secondsToMidnight(auckland);
		HttpResponse<String> allowed = get("/plain-daily");
		HttpResponse<String> denied = get("/plain-daily");
		long after = secondsToMidnight(auckland);
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(allowed.headers().allValues("RateLimit-Policy")).containsExactly("\"daily-rule\";q=1;w=86400");
		assertThat(denied.statusCode()).isEqualTo(429);
		long retryAfter = Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(Math.min(before, after) - 5, Math.max(before, after) + 5);
		assertThat(denied.headers().allValues("RateLimit")).containsExactly("\"daily-rule\";r=0;t=" + retryAfter);
	}

	private static long secondsToMidnight(ZoneId zone) {
		ZonedDateTime now = ZonedDateTime.now(zone);
		return Duration.between(now, now.toLocalDate().plusDays(1).atStartOfDay(zone)).toSeconds();
	}

	@Test
	void windowShorterThanASecondIsRoundedUpInThePolicy() throws Exception {
		HttpResponse<String> response = get("/half-second");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().allValues("RateLimit-Policy")).containsExactly("\"half-second\";q=5;w=1");
	}

	@Test
	void filterRuleAndAnnotationAreOneDecisionAllOrNothing() throws Exception {
		HttpResponse<String> first = get("/combo");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(String.join(", ", first.headers().allValues("RateLimit-Policy")))
			.isEqualTo("\"edge\";q=5;w=60, \"combo\";q=3;w=60");
		assertThat(String.join(", ", first.headers().allValues("RateLimit")))
			.isEqualTo("\"edge\";r=4;t=12, \"combo\";r=2;t=20");
		assertThat(items(get("/combo"), "RateLimit")).containsExactly("\"edge\";r=3", "\"combo\";r=1");
		assertThat(items(get("/combo"), "RateLimit")).containsExactly("\"edge\";r=2", "\"combo\";r=0");
		HttpResponse<String> denied = get("/combo");
		assertThat(denied.statusCode()).isEqualTo(429);
		// Decided together: the annotation's denial leaves the rule's budget as it was.
		assertThat(items(denied, "RateLimit")).containsExactly("\"edge\";r=2", "\"combo\";r=0");
		assertThat(String.join(", ", denied.headers().allValues("RateLimit-Policy")))
			.isEqualTo("\"edge\";q=5;w=60, \"combo\";q=3;w=60");
		assertThat(denied.headers().allValues("Retry-After")).containsExactly("20");
		assertThat(denied.body()).contains("\"violated-policies\":[\"combo\"]");
	}

	/** The list items of a field across its field lines, without their {@code t} parameter. */
	protected static List<String> items(HttpResponse<String> response, String field) {
		return response.headers()
			.allValues(field)
			.stream()
			.flatMap((line) -> Arrays.stream(line.split(",\\s*")))
			.map((item) -> item.replaceAll(";t=\\d+$", ""))
			.toList();
	}

	protected HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri(path)).GET());
	}

	protected HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
		// A lost response fails the test instead of hanging the build.
		return this.client.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
	}

	protected URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

}
