package dev.ratelimit.security;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import dev.ratelimit.test.TestRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimits} endpoint's write operations (a POST that overrides a limit, a DELETE that resets a client)
 * behind Spring Boot's security, over a real server: what an operator meets with Boot's default chain (the right
 * password refused, since the CSRF filter runs before HTTP Basic reads it), and that the documented snippet
 * (docs/OPERATIONS.md) lets the operator in with credentials and the role, refuses them without, and leaves every
 * other URL protected as before, CSRF included. Written once, run on Spring MVC and WebFlux.
 */
abstract class EndpointWriteContract {

	private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static final String OVERRIDE = "{\"limit\": 20}";

	private final List<ConfigurableApplicationContext> started = new ArrayList<>();

	private int port;

	/** The stack under test. */
	abstract WebApplicationType type();

	/** The application without security configuration of its own: Spring Boot's default chain. */
	abstract Class<?> application();

	/** The endpoint's chain of the snippet. */
	abstract Class<?> endpointSecurity();

	/** The snippet's chain for everything else, as Boot's default chain had it. */
	abstract Class<?> applicationSecurity();

	/** An application's own chain: {@code /public/**} open, the rest with HTTP Basic, CSRF on. */
	abstract Class<?> ownSecurity();

	/** The status of a request that its CSRF token is missing refuses, before HTTP Basic has read the credentials. */
	abstract int csrfRefusal();

	@AfterEach
	void stop() {
		this.started.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void bootsDefaultSecurityRefusesTheOperatorsPostAndResetWithTheRightPassword() throws Exception {
		start("OPS", application());
		assertThat(send("GET", "/actuator/ratelimits", "ops", null).statusCode()).as("GET works").isEqualTo(200);

		HttpResponse<String> post = send("POST", "/actuator/ratelimits/api", "ops", OVERRIDE);
		assertThat(post.statusCode()).as("the right password, refused for want of a CSRF token")
			.isEqualTo(csrfRefusal());
		assertThat(send("DELETE", "/actuator/ratelimits/api?client=ip:203.0.113.7", "ops", null).statusCode())
			.isEqualTo(csrfRefusal());
	}

	@Test
	void withTheSnippetTheOperatorsPostAndResetWorkAndNothingElseOpens() throws Exception {
		start("OPS", application(), endpointSecurity(), applicationSecurity());

		HttpResponse<String> post = send("POST", "/actuator/ratelimits/api", "ops", OVERRIDE);
		assertThat(post.statusCode()).as(post.body()).isEqualTo(200);
		assertThat(post.body()).contains("\"name\":\"api\"").contains("\"limit\":20");
		HttpResponse<String> reset = send("DELETE", "/actuator/ratelimits/api?client=ip:203.0.113.7", "ops", null);
		assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
		assertThat(reset.body()).contains("\"client\":\"ip:203.0.113.7\"");

		assertThat(send("POST", "/actuator/ratelimits/api", null, OVERRIDE).statusCode()).as("no credentials")
			.isEqualTo(401);
		assertThat(send("POST", "/actuator/ratelimits/api", "wrong", OVERRIDE).statusCode()).as("a wrong password")
			.isEqualTo(401);
		assertThat(send("GET", "/actuator/ratelimits", null, null).statusCode()).isEqualTo(401);

		assertThat(send("GET", "/api/hello", null, null).statusCode()).as("the rest still needs a login")
			.isIn(302, 401);
		assertThat(send("GET", "/api/hello", "ops", null).statusCode()).isEqualTo(200);
		assertThat(send("POST", "/api/hello", "ops", "{}").statusCode()).as("the rest keeps CSRF protection")
			.isEqualTo(csrfRefusal());
		assertThat(send("GET", "/actuator/health", null, null).statusCode()).as("other endpoints as before")
			.isIn(302, 401);
	}

	@Test
	void withTheSnippetAUserWithoutTheRoleIsForbidden() throws Exception {
		start("VIEWER", application(), endpointSecurity(), applicationSecurity());
		assertThat(send("POST", "/actuator/ratelimits/api", "ops", OVERRIDE).statusCode()).isEqualTo(403);
		assertThat(send("GET", "/api/hello", "ops", null).statusCode()).isEqualTo(200);
	}

	@Test
	void besideAnApplicationsOwnChainTheSnippetsEndpointChainAloneLetsTheOperatorIn() throws Exception {
		start("OPS", application(), endpointSecurity(), ownSecurity());

		assertThat(send("POST", "/actuator/ratelimits/api", "ops", OVERRIDE).statusCode()).isEqualTo(200);
		assertThat(send("POST", "/actuator/ratelimits/api", null, OVERRIDE).statusCode()).isEqualTo(401);
		assertThat(send("GET", "/public/hello", null, null).statusCode()).as("the application's own rules")
			.isEqualTo(200);
		assertThat(send("GET", "/api/hello", null, null).statusCode()).isEqualTo(401);
		assertThat(send("POST", "/api/hello", "ops", "{}").statusCode()).isEqualTo(csrfRefusal());
	}

	private void start(String role, Class<?>... sources) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(sources).web(type())
			.run("--server.port=0", "--spring.data.redis.url=" + TestRedis.shared().url(),
					"--spring.security.user.name=ops", "--spring.security.user.password=pw",
					"--spring.security.user.roles=" + role, "--management.endpoints.web.exposure.include=ratelimits,health",
					"--ratelimit.filter.rules[0].name=api", "--ratelimit.filter.rules[0].paths=/api/**",
					"--ratelimit.filter.rules[0].limit=100", "--ratelimit.filter.rules[0].window=1m");
		this.started.add(context);
		this.port = Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
	}

	/** A request as curl sends it: with {@code -u <user>:pw} when {@code user} is given, JSON when a body is. */
	private HttpResponse<String> send(String method, String path, @Nullable String user, @Nullable String json)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(20))
			.method(method, (json != null) ? HttpRequest.BodyPublishers.ofString(json)
					: HttpRequest.BodyPublishers.noBody());
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		if (user != null) {
			String password = user.equals("wrong") ? "nope" : "pw";
			request.header("Authorization", "Basic " + Base64.getEncoder()
				.encodeToString(("ops:" + password).getBytes(StandardCharsets.UTF_8)));
		}
		return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
