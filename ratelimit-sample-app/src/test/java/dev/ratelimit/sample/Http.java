package dev.ratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Calls to a {@link SampleProcess} with {@link HttpClient}, and the rate-limit header fields of the answers parsed
 * (IETF style: {@code RateLimit-Policy: "name";q=..;w=..} and {@code RateLimit: "name";r=..;t=..}).
 */
final class Http {

	/** One item of the {@code RateLimit} field. */
	record State(long remaining, long seconds) {
	}

	/** One item of the {@code RateLimit-Policy} field. */
	record Policy(long quota, long windowSeconds) {
	}

	private static final Pattern STATE = Pattern.compile("\"([^\"]*)\";r=(\\d+);t=(\\d+)");

	private static final Pattern POLICY = Pattern.compile("\"([^\"]*)\";q=(\\d+);w=(\\d+)");

	private static final HttpClient CLIENT = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private Http() {
	}

	/** {@code GET path}, with {@code X-Api-Key: apiKey} unless it is null. */
	static HttpResponse<String> get(SampleProcess instance, String path, String apiKey) {
		return send(getRequest(instance, path, apiKey));
	}

	static CompletableFuture<HttpResponse<String>> getAsync(SampleProcess instance, String path, String apiKey) {
		return CLIENT.sendAsync(getRequest(instance, path, apiKey), HttpResponse.BodyHandlers.ofString());
	}

	/** {@code DELETE path}. */
	static HttpResponse<String> delete(SampleProcess instance, String path) {
		return send(HttpRequest.newBuilder(instance.uri(path)).timeout(Duration.ofSeconds(10)).DELETE().build());
	}

	/** {@code POST path} without a body, answered within a minute. */
	static CompletableFuture<HttpResponse<String>> postAsync(SampleProcess instance, String path) {
		return CLIENT.sendAsync(HttpRequest.newBuilder(instance.uri(path))
			.timeout(Duration.ofSeconds(60))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** {@code POST path} without a body, with {@code X-Api-Key: apiKey}. */
	static HttpResponse<String> post(SampleProcess instance, String path, String apiKey) {
		return send(HttpRequest.newBuilder(instance.uri(path))
			.timeout(Duration.ofSeconds(10))
			.header("X-Api-Key", apiKey)
			.POST(HttpRequest.BodyPublishers.noBody())
			.build());
	}

	/** {@code GET path} with HTTP Basic credentials. */
	static HttpResponse<String> basic(SampleProcess instance, String path, String username, String password) {
		String credentials = java.util.Base64.getEncoder()
			.encodeToString((username + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
		return send(HttpRequest.newBuilder(instance.uri(path))
			.timeout(Duration.ofSeconds(30))
			.header("Authorization", "Basic " + credentials)
			.GET()
			.build());
	}

	/** {@code POST path} with a JSON body (an Actuator write operation). */
	static HttpResponse<String> postJson(SampleProcess instance, String path, String json) {
		return send(HttpRequest.newBuilder(instance.uri(path))
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build());
	}

	/** {@code POST /auth/login} with a form body, answered within a minute. */
	static CompletableFuture<HttpResponse<String>> loginAsync(SampleProcess instance, String username,
			String password) {
		String form = "username=" + URLEncoder.encode(username, StandardCharsets.UTF_8) + "&password="
				+ URLEncoder.encode(password, StandardCharsets.UTF_8);
		return CLIENT.sendAsync(HttpRequest.newBuilder(instance.uri("/auth/login"))
			.timeout(Duration.ofSeconds(60))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** {@code POST /auth/login} with a form body. */
	static HttpResponse<String> login(SampleProcess instance, String username, String password) {
		String form = "username=" + URLEncoder.encode(username, StandardCharsets.UTF_8) + "&password="
				+ URLEncoder.encode(password, StandardCharsets.UTF_8);
		return send(HttpRequest.newBuilder(instance.uri("/auth/login"))
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build());
	}

	/** The items of every {@code RateLimit} field line, by policy name. */
	static Map<String, State> states(HttpResponse<?> response) {
		Map<String, State> states = new LinkedHashMap<>();
		Matcher matcher = STATE.matcher(String.join(", ", response.headers().allValues("RateLimit")));
		while (matcher.find()) {
			states.put(matcher.group(1), new State(Long.parseLong(matcher.group(2)), Long.parseLong(matcher.group(3))));
		}
		return states;
	}

	/** The items of every {@code RateLimit-Policy} field line, by policy name. */
	static Map<String, Policy> policies(HttpResponse<?> response) {
		Map<String, Policy> policies = new LinkedHashMap<>();
		Matcher matcher = POLICY.matcher(String.join(", ", response.headers().allValues("RateLimit-Policy")));
		while (matcher.find()) {
			policies.put(matcher.group(1),
					new Policy(Long.parseLong(matcher.group(2)), Long.parseLong(matcher.group(3))));
		}
		return policies;
	}

	/** {@code Retry-After} in seconds; fails when absent or not delay-seconds. */
	static long retryAfter(HttpResponse<?> response) {
		String value = response.headers()
			.firstValue("Retry-After")
			.orElseThrow(() -> new AssertionError("no Retry-After on " + response + ": " + response.headers()));
		return Long.parseLong(value);
	}

	private static HttpRequest getRequest(SampleProcess instance, String path, String apiKey) {
		HttpRequest.Builder request = HttpRequest.newBuilder(instance.uri(path)).timeout(Duration.ofSeconds(10));
		if (apiKey != null) {
			request.header("X-Api-Key", apiKey);
		}
		return request.GET().build();
	}

	private static HttpResponse<String> send(HttpRequest request) {
		try {
			return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
