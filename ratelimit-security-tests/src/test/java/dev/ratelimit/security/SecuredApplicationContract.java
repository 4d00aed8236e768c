package dev.ratelimit.security;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
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
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter in an application secured by Spring Boot, over a real server; written once, run on Spring MVC and
 * WebFlux.
 *
 * <p>
 * The {@code ratelimits} endpoint's write operations (a POST that overrides a limit, a DELETE that resets a client):
 * what an operator meets with Boot's default chain (the right password refused, since the CSRF filter runs before
 * HTTP Basic reads it), and that the documented snippet (docs/OPERATIONS.md) lets the operator in with credentials
 * and the role, refuses them without, and leaves every other URL protected as before, CSRF included.
 *
 * <p>
 * A key helper that reads a header value Spring Security's firewall refuses (docs/ANNOTATIONS-AND-RULES.md, Client
 * keys): the key expression throws as it reads it, the request is keyed by its address (ratelimit.missing-key's
 * default), one WARN names the expression, and nothing becomes a 500. The value is {@code ключ} sent as UTF-8, which
 * the server reads as ISO-8859-1, two of whose characters are then control characters.
 *
 * <p>
 * The span of a secured request's decision (docs/OPERATIONS.md, Observations): under Spring Security's
 * {@code secured request} span, where the starter's filter runs, in the server span's trace.
 */
@ExtendWith(OutputCaptureExtension.class)
abstract class SecuredApplicationContract {

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

	/** Every test starts with no client state: the budgets of 127.0.0.1 are the tests' only client. */
	@BeforeEach
	void noState() {
		TestRedis.shared().command("FLUSHALL");
	}

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

	private ConfigurableApplicationContext start(String role, Class<?>... sources) {
		return start(role, new String[] { "--ratelimit.filter.rules[0].name=api", "--ratelimit.filter.rules[0].limit=100" },
				sources);
	}

	private ConfigurableApplicationContext start(String role, String[] rule, Class<?>... sources) {
		List<String> arguments = new ArrayList<>(List.of("--server.port=0",
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--spring.security.user.name=ops",
				"--spring.security.user.password=pw", "--spring.security.user.roles=" + role,
				"--management.endpoints.web.exposure.include=ratelimits,health",
				"--ratelimit.filter.rules[0].paths=/api/**", "--ratelimit.filter.rules[0].window=1m"));
		arguments.addAll(List.of(rule));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(sources).web(type())
			.run(arguments.toArray(String[]::new));
		this.started.add(context);
		this.port = Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
		return context;
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

	@Test
	void aHeaderValueTheFirewallRefusesKeysTheRequestByItsAddress(CapturedOutput output) throws Exception {
		start("OPS", new String[] { "--ratelimit.filter.rules[0].name=keyed", "--ratelimit.filter.rules[0].limit=2",
				"--ratelimit.filter.rules[0].key=#header('X-Api-Key')" }, application());

		assertThat(get("ключ")).isEqualTo(200);
		assertThat(get("ключ")).isEqualTo(200);
		assertThat(get("ключ")).as("the address's budget, 2, is spent").isEqualTo(429);
		assertThat(get("k-1")).as("a key the firewall accepts has its own budget").isEqualTo(200);
		assertThat(output.getOut()).contains("Key expression '#header('X-Api-Key')' of ratelimit.filter.rules[0]"
				+ " failed; treating the key as missing").contains("The request was rejected because the header");
		assertThat(output.getOut().split("treating the key as missing \\(ratelimit.missing-key\\): ", -1))
			.as("one WARN, later failures at DEBUG")
			.hasSize(2);
	}

	/**
	 * docs/OPERATIONS.md: the decision's span goes under the observation current where the starter's filter decides,
	 * which behind Spring Security's filter chain is Security's {@code secured request} span, in the server span's
	 * trace.
	 */
	@Test
	void aSecuredRequestsDecisionIsUnderSecuritysSecuredRequestSpanInTheServersTrace() throws Exception {
		SimpleTracer tracer = start("OPS", application(), Tracing.class).getBean(SimpleTracer.class);
		assertThat(send("GET", "/api/hello", "ops", null).statusCode()).isEqualTo(200);

		// the server span is named and ended once its observation stops, which may come after the client's answer
		SimpleSpan server = ended(tracer, "http get /api/hello");
		SimpleSpan decision = ended(tracer, "ratelimit decision");
		SimpleSpan parent = parentOf(tracer, decision);
		assertThat(parent.getName()).as("the decision's parent").isEqualTo("secured request");
		assertThat(decision.getTraceId()).isEqualTo(server.getTraceId());
		SimpleSpan ancestor = parent;
		while (!ancestor.getSpanId().equals(server.getSpanId())) {
			ancestor = parentOf(tracer, ancestor);
		}
	}

	/** The only span of {@code name}, once it has ended (waiting at most 20 s). */
	private static SimpleSpan ended(SimpleTracer tracer, String name) throws InterruptedException {
		long giveUp = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (System.nanoTime() < giveUp) {
			List<SimpleSpan> spans = tracer.getSpans()
				.stream()
				.filter((span) -> name.equals(span.getName()) && span.getEndTimestamp().toEpochMilli() != 0)
				.toList();
			if (!spans.isEmpty()) {
				assertThat(spans).as("spans named %s", name).hasSize(1);
				return spans.get(0);
			}
			Thread.sleep(5);
		}
		throw new AssertionError("no span named " + name + " ended among " + tracer.getSpans());
	}

	private static SimpleSpan parentOf(SimpleTracer tracer, SimpleSpan span) {
		return tracer.getSpans()
			.stream()
			.filter((candidate) -> candidate.getSpanId().equals(span.getParentId()))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no parent of " + span.getName() + " among " + tracer.getSpans()));
	}

	/** {@code GET /api/hello} with Basic credentials and the key's UTF-8 bytes, written on the socket as they are. */
	private int get(String key) throws IOException {
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), this.port)) {
			socket.setSoTimeout(20_000);
			OutputStream out = socket.getOutputStream();
			out.write(("GET /api/hello HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic b3BzOnB3\r\n"
					+ "Connection: close\r\nX-Api-Key: ").getBytes(StandardCharsets.US_ASCII));
			out.write(key.getBytes(StandardCharsets.UTF_8));
			out.write("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			String statusLine = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
			return Integer.parseInt(statusLine.substring(9, 12));
		}
	}

}
