package dev.ratelimit.openapi;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.Locale;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limits in springdoc-openapi's document of a real application, over its real server ({@code GET /v3/api-docs});
 * written once, run on Spring MVC and WebFlux. The operations and which limits cover them are {@link DocumentedApi}'s
 * and {@link AdminApi}'s; the descriptions expected are the shapes as configured here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OpenApiContract {

	/** The filter rules, plans and store of the application. */
	static final String[] PROPERTIES = { "ratelimit.store=in-memory",
			"ratelimit.filter.rules[0].name=api", "ratelimit.filter.rules[0].paths=/api/**",
			"ratelimit.filter.rules[0].algorithm=token-bucket", "ratelimit.filter.rules[0].limit=100",
			"ratelimit.filter.rules[0].window=1m",
			"ratelimit.filter.rules[1].name=special", "ratelimit.filter.rules[1].paths=/api/items/special",
			"ratelimit.filter.rules[1].algorithm=fixed-window", "ratelimit.filter.rules[1].limit=5",
			"ratelimit.filter.rules[1].window=1s",
			"ratelimit.filter.rules[2].name=nowhere", "ratelimit.filter.rules[2].paths=/nowhere/**",
			"ratelimit.filter.rules[3].name=orders", "ratelimit.filter.rules[3].paths=/orders",
			"ratelimit.filter.rules[3].methods=POST", "ratelimit.filter.rules[3].algorithm=sliding-log",
			"ratelimit.filter.rules[3].limit=20", "ratelimit.filter.rules[3].window=1h",
			"ratelimit.filter.rules[4].name=json-files", "ratelimit.filter.rules[4].paths=/files/*.json",
			"ratelimit.filter.rules[5].name=numbered", "ratelimit.filter.rules[5].paths=/versions/{id:\\d+}",
			"ratelimit.filter.rules[6].name=quota", "ratelimit.filter.rules[6].paths=/quota",
			"ratelimit.filter.rules[6].limit=1000", "ratelimit.filter.rules[6].period=day",
			"ratelimit.filter.rules[6].zone=Europe/Berlin",
			"ratelimit.filter.rules[7].name=shadowed", "ratelimit.filter.rules[7].paths=/shadowed",
			"ratelimit.filter.rules[7].mode=shadow",
			"ratelimit.plan.expression='free'",
			"ratelimit.plans.free.tiered.algorithm=token-bucket", "ratelimit.plans.free.tiered.limit=10",
			"ratelimit.plans.free.tiered.window=1m",
			"ratelimit.plans.pro.tiered.algorithm=token-bucket", "ratelimit.plans.pro.tiered.limit=100",
			"ratelimit.plans.pro.tiered.window=1m" };

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private final List<ConfigurableApplicationContext> started = new ArrayList<>();

	private int port;

	private String text = "";

	private JsonNode document = JSON.missingNode();

	/** The stack under test. */
	abstract WebApplicationType type();

	@BeforeAll
	void start() throws Exception {
		this.port = start(PROPERTIES);
		this.text = get("/v3/api-docs").body();
		this.document = JSON.readTree(this.text);
	}

	@AfterAll
	void stop() {
		this.started.forEach(ConfigurableApplicationContext::close);
	}

	/** Starts the application on a free port with {@code properties}, and gives the port. */
	int start(String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class).web(type())
			.properties(properties)
			.run("--server.port=0", "--server.address=127.0.0.1");
		this.started.add(context);
		return Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
	}

	@Test
	void anOperationThatARuleCoversHasItsTooManyRequestsAndFieldsDescribingTheLimit() {
		// springdoc's default: schemas with a set of types, which the starter's must be written for too
		assertThat(this.document.path("openapi").asString()).startsWith("3.1");
		JsonNode item = operation("/api/items/{id}", "get");
		JsonNode denied = item.path("responses").path("429");
		assertThat(denied.path("content").path("application/problem+json").path("schema").path("$ref").asString())
			.isEqualTo("#/components/schemas/RateLimitProblemDetail");
		assertThat(names(denied.path("headers"))).containsExactlyInAnyOrder("Retry-After", "RateLimit-Policy",
				"RateLimit");
		assertThat(denied.path("headers").path("Retry-After").path("schema").path("type").asString())
			.isEqualTo("integer");
		JsonNode ok = item.path("responses").path("200");
		assertThat(names(ok.path("headers"))).containsExactlyInAnyOrder("RateLimit-Policy", "RateLimit");
		assertThat(policy(ok)).contains("api: 100 per 1m (token bucket)");
		assertThat(ok.path("headers").path("RateLimit-Policy").path("example").asString())
			.isEqualTo("\"api\";q=100;w=60");
	}

	@Test
	void aRuleThatMatchesOnlyPartOfAnOperationsPathsDocumentsNothingThere() {
		assertThat(policy(operation("/api/items/{id}", "get").path("responses").path("200"))).doesNotContain("special");
		assertThat(policy(operation("/api/items/special", "get").path("responses").path("200")))
			.contains("api: 100 per 1m (token bucket)")
			.contains("special: 5 per 1s (fixed window)");
		assertLeftAlone(operation("/files/{name}", "get"));
		assertLeftAlone(operation("/versions/{id}", "get"));
	}

	@Test
	void aRuleThatMatchesNoOperationDocumentsNothing() {
		assertThat(this.text).doesNotContain("nowhere").contains("special: 5 per 1s (fixed window)");
	}

	@Test
	void aRuleOfOtherMethodsLeavesTheOperationAlone() {
		assertThat(policy(operation("/orders", "post").path("responses").path("200")))
			.contains("orders: 20 per 1h (sliding log)");
		assertLeftAlone(operation("/orders", "get"));
	}

	@Test
	void annotatedMethodsAndClassesHaveTheirLimits() {
		assertThat(policy(operation("/reports", "get").path("responses").path("200")))
			.contains("reports: 2 per 1m (token bucket)")
			.doesNotContain("api:");
		for (String admin : List.of("/admin/users", "/admin/stats")) {
			assertThat(policy(operation(admin, "get").path("responses").path("429")))
				.contains("admin: 3 per 1h (sliding window counter)");
		}
		assertThat(policy(operation("/exports", "get").path("responses").path("200")))
			.contains("exports: 2 requests in flight at once (concurrency)");
	}

	@Test
	void calendarPeriodsAndPlansAreDescribed() {
		assertThat(policy(operation("/quota", "get").path("responses").path("200")))
			.contains("quota: 1000 per day in Europe/Berlin (fixed window)");
		JsonNode tiered = operation("/tiered", "get").path("responses").path("200");
		assertThat(policy(tiered))
			.contains("tiered: 10 per 1m (token bucket) in plan free, 100 per 1m (token bucket) in plan pro");
		assertThat(tiered.path("headers").path("RateLimit-Policy").has("example")).isFalse();
	}

	@Test
	void operationsThatNoEnforcedLimitSurelyCoversAreLeftAlone() {
		assertThat(names(operation("/api/items/{id}", "get").path("responses"))).contains("429");
		assertLeftAlone(operation("/open", "get"));
		assertLeftAlone(operation("/shadowed", "get"));
		// two handlers in one operation, one of them without a limit
		assertLeftAlone(operation("/search", "get"));
	}

	@Test
	void theNoteOfHandlersLimitsNeverReachesTheDocument() {
		assertThat(this.text).doesNotContain("x-ratelimit").contains("reports: 2 per 1m (token bucket)");
	}

	@Test
	void theProblemBodyAndFieldsDocumentedAreThoseSent() throws Exception {
		JsonNode responses = operation("/reports", "get").path("responses");
		HttpResponse<String> admitted = get("/reports");
		assertThat(admitted.statusCode()).isEqualTo(200);
		assertThat(rateLimitFields(admitted)).isNotEmpty();
		assertThat(fieldNames(responses.path("200"))).containsAll(rateLimitFields(admitted));
		get("/reports");
		HttpResponse<String> denied = get("/reports");
		assertThat(denied.statusCode()).isEqualTo(429);
		JsonNode documented = responses.path("429");
		assertThat(rateLimitFields(denied)).contains("retry-after", "ratelimit-policy", "ratelimit");
		assertThat(fieldNames(documented)).containsAll(rateLimitFields(denied));
		assertThat(denied.headers().firstValue("Content-Type").orElseThrow())
			.startsWith(names(documented.path("content")).iterator().next());
		JsonNode schema = this.document.path("components").path("schemas").path("RateLimitProblemDetail");
		JsonNode body = JSON.readTree(denied.body());
		assertThat(names(schema.path("properties"))).containsAll(names(body));
		for (JsonNode required : schema.path("required")) {
			assertThat(body.has(required.asString())).as(required.asString()).isTrue();
		}
		for (String constant : List.of("type", "title", "status")) {
			assertThat(schema.path("properties").path(constant).path("enum").get(0).asString())
				.isEqualTo(body.path(constant).asString());
		}
		assertThat(schema.path("properties").path("violated-policies").path("type").asString()).isEqualTo("array");
	}

	JsonNode operation(String path, String method) {
		JsonNode operation = this.document.path("paths").path(path).path(method);
		assertThat(operation.isObject()).as("%s %s in %s", method, path, this.document.path("paths")).isTrue();
		return operation;
	}

	/** No 429 and no header fields on any response. */
	static void assertLeftAlone(JsonNode operation) {
		assertThat(names(operation.path("responses"))).doesNotContain("429");
		for (JsonNode response : operation.path("responses")) {
			assertThat(response.has("headers")).as(response.toString()).isFalse();
		}
	}

	/** The description of the response's {@code RateLimit-Policy} field. */
	static String policy(JsonNode response) {
		return response.path("headers").path("RateLimit-Policy").path("description").asString();
	}

	static Set<String> names(JsonNode object) {
		return new TreeSet<>(object.propertyNames());
	}

	/** The names of the fields documented on a response, in lower case: field names are case-insensitive. */
	static Set<String> fieldNames(JsonNode response) {
		Set<String> names = new TreeSet<>();
		names(response.path("headers")).forEach((name) -> names.add(name.toLowerCase(Locale.ROOT)));
		return names;
	}

	/** The rate-limit fields of a response (those whose name says so, and Retry-After), in lower case. */
	static Set<String> rateLimitFields(HttpResponse<?> response) {
		Set<String> fields = new TreeSet<>();
		for (String name : response.headers().map().keySet()) {
			String lowerCase = name.toLowerCase(Locale.ROOT);
			if (lowerCase.contains("ratelimit") || lowerCase.equals("retry-after")) {
				fields.add(lowerCase);
			}
		}
		return fields;
	}

	HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return get(this.port, path);
	}

	HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
		return this.client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ DocumentedApi.class, AdminApi.class })
	static class Application {

	}

}
