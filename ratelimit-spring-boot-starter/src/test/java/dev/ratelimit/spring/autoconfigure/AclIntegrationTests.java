package dev.ratelimit.spring.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter as a Redis ACL user with the least it needs, as docs/FAILURES.md lists it: its keys ({@code ~rl:*}), the
 * scripting commands, the commands the scripts run, and the handshakes of Lettuce and Jedis. With them, limits are
 * exact on both clients; without {@code SCRIPT LOAD} still exact (the first call sends the script with {@code EVAL});
 * without {@code EVALSHA} every decision fails and the failure policy applies (here fail-open), never a 500.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AclIntegrationTests {

	/** The commands the scripts run: GET, SET, PEXPIRE, DEL, TIME and the sorted-set commands of the sliding log. */
	static final String SCRIPT_COMMANDS = "+get +set +pexpire +del +time +zadd +zcard +zcount +zrange +zremrangebyscore";

	/** The handshakes: Lettuce's HELLO with AUTH and SETNAME, Jedis' AUTH, CLIENT SETNAME and PING (Redis 7.2 adds CLIENT SETINFO, which Jedis sends and may be refused). */
	static final String HANDSHAKE = "+hello +auth +client|setname +ping";

	private static final int LIMIT = 3;

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private TestRedis redis;

	@BeforeAll
	void startRedisWithUsers() {
		this.redis = TestRedis.start();
		user("limiter", "+evalsha +eval +script|load " + SCRIPT_COMMANDS + " " + HANDSHAKE);
		user("no-script-load", "+evalsha +eval " + SCRIPT_COMMANDS + " " + HANDSHAKE);
		user("no-evalsha", "+eval +script|load " + SCRIPT_COMMANDS + " " + HANDSHAKE);
	}

	@AfterAll
	void stopRedis() {
		this.redis.close();
	}

	private void user(String name, String commands) {
		List<String> words = new ArrayList<>(List.of("ACL", "SETUSER", name, "reset", "on", ">secret", "~rl:*",
				"-@all"));
		words.addAll(List.of(commands.split(" ")));
		assertThat(this.redis.command(words.toArray(String[]::new))).isEqualTo("+OK");
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void theMinimalUserLimitsExactly(String client) throws Exception {
		try (ConfigurableApplicationContext context = start(client, "limiter")) {
			assertLimitsExactly(context);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void withoutScriptLoadTheFirstCallSendsTheScript(String client) throws Exception {
		try (ConfigurableApplicationContext context = start(client, "no-script-load")) {
			assertLimitsExactly(context);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void withoutEvalshaEveryDecisionFollowsTheFailurePolicy(String client) throws Exception {
		try (ConfigurableApplicationContext context = start(client, "no-evalsha")) {
			String key = UUID.randomUUID().toString();
			for (int i = 0; i < LIMIT + 2; i++) {
				HttpResponse<String> response = get(context, key);
				assertThat(response.statusCode()).isEqualTo(200);
				assertThat(response.headers().firstValue("RateLimit")).isEmpty();
			}
			assertThat(Search.in(context.getBean(MeterRegistry.class))
				.name("ratelimit.decisions")
				.tag("outcome", "fail-open")
				.counter()
				.count()).isEqualTo(LIMIT + 2);
		}
	}

	private void assertLimitsExactly(ConfigurableApplicationContext context) throws Exception {
		String key = UUID.randomUUID().toString();
		for (int remaining = LIMIT - 1; remaining >= 0; remaining--) {
			HttpResponse<String> response = get(context, key);
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("RateLimit")).hasValueSatisfying(
					(value) -> assertThat(value).startsWith("\"acl\";r="));
		}
		HttpResponse<String> denied = get(context, key);
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("RateLimit")).hasValueSatisfying(
				(value) -> assertThat(value).startsWith("\"acl\";r=0;"));
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		assertThat(Search.in(registry).name("ratelimit.redis.failures").counter().count()).isZero();
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String key) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/acl"))
			.header("X-Client", key)
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private ConfigurableApplicationContext start(String client, String user) {
		return new SpringApplicationBuilder(AclApplication.class).run("--server.port=0", "--server.address=127.0.0.1",
				"--spring.main.web-application-type=servlet",
				"--ratelimit.redis.url=redis://" + user + ":secret@" + this.redis.host() + ":" + this.redis.port(),
				"--ratelimit.redis.client=" + client, "--ratelimit.redis.timeout=10s");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(AclController.class)
	static class AclApplication {

	}

	@RestController
	static class AclController {

		@RateLimited(name = "acl", algorithm = "sliding-log", limit = LIMIT, window = "1h",
				key = "#request.getHeader('X-Client')")
		@GetMapping("/acl")
		String acl() {
			return "acl";
		}

	}

}
