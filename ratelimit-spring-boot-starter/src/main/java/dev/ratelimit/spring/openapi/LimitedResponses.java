package dev.ratelimit.spring.openapi;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.ratelimit.spring.HeaderStyle;
import dev.ratelimit.spring.enforce.RateLimitHeaderWriter;
import dev.ratelimit.spring.enforce.RateLimitResponder;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * What the starter sends on the answers of a limited operation, written into its documentation
 * (docs/HTTP.md): the rate-limit fields of the header style on every answer, and the 429 with {@code Retry-After} and
 * its problem body. What the application documented itself stays: a response of its own keeps its content and the
 * fields it names, and responses are replaced by copies rather than changed, since springdoc may share one between
 * operations.
 */
final class LimitedResponses {

	/** The name of the 429's body in the document's schemas. */
	static final String PROBLEM_SCHEMA = "RateLimitProblemDetail";

	private static final String TOO_MANY_REQUESTS = String.valueOf(HttpStatus.TOO_MANY_REQUESTS.value());

	private final HeaderStyle style;

	LimitedResponses(HeaderStyle style) {
		this.style = style;
	}

	/** Documents {@code limits}, the enforced limits that surely apply to every request of {@code operation}. */
	void document(OpenAPI openApi, Operation operation, List<ConfiguredLimit> limits) {
		Map<String, Header> fields = fields(limits);
		ApiResponses responses = new ApiResponses();
		if (operation.getResponses() != null) {
			operation.getResponses().forEach((status, response) -> responses.addApiResponse(status,
					(response.get$ref() != null) ? response : withFields(response, fields)));
		}
		ApiResponse denied = responses.get(TOO_MANY_REQUESTS);
		if (denied == null) {
			denied = tooManyRequests(limits);
		}
		if (denied.get$ref() == null) {
			Map<String, Header> deniedFields = new LinkedHashMap<>();
			deniedFields.put(HttpHeaders.RETRY_AFTER, retryAfter());
			deniedFields.putAll(fields);
			denied = withFields(denied, deniedFields);
		}
		responses.addApiResponse(TOO_MANY_REQUESTS, denied);
		operation.setResponses(responses);
		Components components = (openApi.getComponents() != null) ? openApi.getComponents() : new Components();
		if (components.getSchemas() == null || !components.getSchemas().containsKey(PROBLEM_SCHEMA)) {
			components.addSchemas(PROBLEM_SCHEMA, problem());
		}
		openApi.setComponents(components);
	}

	/** A copy of {@code response} with the fields it does not name yet. */
	private static ApiResponse withFields(ApiResponse response, Map<String, Header> fields) {
		Map<String, Header> headers = new LinkedHashMap<>();
		if (response.getHeaders() != null) {
			headers.putAll(response.getHeaders());
		}
		fields.forEach(headers::putIfAbsent);
		return new ApiResponse().description(response.getDescription())
			.content(response.getContent())
			.links(response.getLinks())
			.extensions(response.getExtensions())
			.headers(headers);
	}

	private static ApiResponse tooManyRequests(List<ConfiguredLimit> limits) {
		return new ApiResponse()
			.description("Too Many Requests: refused by a rate limit (" + texts(limits) + ")")
			.content(new Content().addMediaType(org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON_VALUE,
					new MediaType().schema(new Schema<>().$ref(PROBLEM_SCHEMA))));
	}

	private static Header retryAfter() {
		return new Header()
			.description("Seconds to wait before retrying (at least 1): a client that waits that long is admitted if"
					+ " nothing else arrived; for a concurrency limit a hint, since a request in flight may end at any"
					+ " moment. Absent when the request can never be admitted: its cost exceeds the limit.")
			.schema(new IntegerSchema().minimum(BigDecimal.ONE));
	}

	/** The rate-limit fields of the header style, by name; none for {@code none}. */
	private Map<String, Header> fields(List<ConfiguredLimit> limits) {
		Map<String, Header> fields = new LinkedHashMap<>();
		String absent = " Absent when the limiter's store fails and the request goes ahead undecided (fail-open).";
		if (this.style == HeaderStyle.IETF) {
			Header policy = new Header()
				.description("The limits of this operation: " + texts(limits) + ". One list item each,"
						+ " \"name\";q=<limit>;w=<window in seconds>; for a concurrency limit"
						+ " \"name\";q=<requests in flight>;qu=\"concurrent-requests\"." + absent)
				.schema(new StringSchema());
			// a planned limit's item is its client's plan's: no one example
			if (limits.stream().noneMatch(ConfiguredLimit::planned)) {
				policy.example(limits.stream()
					.map((limit) -> RateLimitHeaderWriter.policyItem(limit.request().definition()))
					.collect(Collectors.joining(", ")));
			}
			fields.put(RateLimitHeaderWriter.RATE_LIMIT_POLICY, policy);
			fields.put(RateLimitHeaderWriter.RATE_LIMIT, new Header()
				.description("The client's state in each limit of this operation (" + names(limits) + "). One list"
						+ " item each, \"name\";r=<units left>;t=<seconds within which no more come back>; for a"
						+ " concurrency limit without t." + absent)
				.schema(new StringSchema()));
		}
		else if (this.style != HeaderStyle.NONE) {
			fields.put(RateLimitHeaderWriter.singleValued(this.style, RateLimitHeaderWriter.LIMIT), new Header()
				.description("The limit of the most restrictive of this operation's limits: " + texts(limits) + "."
						+ absent)
				.schema(new IntegerSchema().format("int64")));
			fields.put(RateLimitHeaderWriter.singleValued(this.style, RateLimitHeaderWriter.REMAINING), new Header()
				.description("The units the client has left in that limit." + absent)
				.schema(new IntegerSchema().format("int64")));
			fields.put(RateLimitHeaderWriter.singleValued(this.style, RateLimitHeaderWriter.RESET), new Header()
				.description("Seconds until that limit's allowance is full again (on a 429, the Retry-After); absent"
						+ " for a concurrency limit." + absent)
				.schema(new IntegerSchema().format("int64")));
		}
		return fields;
	}

	private static String names(List<ConfiguredLimit> limits) {
		return limits.stream().map(ConfiguredLimit::name).collect(Collectors.joining(", "));
	}

	private static String texts(List<ConfiguredLimit> limits) {
		return limits.stream().map(LimitText::of).collect(Collectors.joining("; "));
	}

	/** The body that {@link RateLimitResponder#exceeded} builds: RFC 9457 problem details. */
	private static Schema<?> problem() {
		ObjectSchema problem = new ObjectSchema();
		problem.description("RFC 9457 problem details of a request that a rate limit refused");
		problem.addProperty("type",
				new StringSchema().addEnumItem(RateLimitResponder.QUOTA_EXCEEDED.toString()).format("uri"));
		problem.addProperty("title", new StringSchema().addEnumItem(HttpStatus.TOO_MANY_REQUESTS.getReasonPhrase()));
		problem.addProperty("status", new IntegerSchema().addEnumItem(HttpStatus.TOO_MANY_REQUESTS.value()));
		problem.addProperty("detail", new StringSchema().description("Which limit refused the request, and when to"
				+ " retry or why it can never be admitted"));
		problem.addProperty("instance", new StringSchema().format("uri-reference").description("The request's path"));
		problem.addProperty(RateLimitResponder.VIOLATED_POLICIES, new ArraySchema().items(new StringSchema())
			.description("The names of the limits that refused the request"));
		problem.setRequired(List.of("type", "title", "status", "detail", RateLimitResponder.VIOLATED_POLICIES));
		return problem;
	}

}
