package dev.ratelimit.spring.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.test.app.XClient;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Mono;
import redis.clients.jedis.Jedis;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One decision per request, counted on a Redis server of the test's own ({@code INFO commandstats}): the limits of
 * a filter rule and of the handler's annotation that share a client key are one script call, all or nothing; a key
 * that reads the handler's arguments is a second call, made when the method is called. On both web stacks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class OneDecisionPerRequestContract {

	private static final String CLIENT_KEY = "@xClient.of(#request)";

	private TestRedis redis;

	private ConfigurableApplicationContext context;

	private final HttpClient http = HttpClient.newHttpClient();

	/** {@code servlet} (Spring MVC) or {@code reactive} (WebFlux). */
	protected abstract String webApplicationType();

	@BeforeAll
	void start() {
		this.redis = TestRedis.start();
		this.context = new SpringApplicationBuilder(DecisionApplication.class).run("--server.port=0",
				"--spring.main.web-application-type=" + webApplicationType(),
				"--server.address=127.0.0.1", "--spring.data.redis.url=" + this.redis.url(),
				"--ratelimit.redis.timeout=10s", "--ratelimit.filter.rules[0].name=api",
				"--ratelimit.filter.rules[0].paths[0]=/api/**", "--ratelimit.filter.rules[0].limit=100",
				"--ratelimit.filter.rules[0].window=1h", "--ratelimit.filter.rules[0].key=" + CLIENT_KEY);
	}

	@AfterAll
	void stop() {
		try {
			if (this.context != null) {
				this.context.close();
			}
		}
		finally {
			if (this.redis != null) {
				this.redis.close();
			}
		}
	}

	@Test
	void ruleAndAnnotationWithOneKeyAreOneScriptCall() throws Exception {
		String client = UUID.randomUUID().toString();
		long before = scriptCalls();
		for (int i = 0; i < 5; i++) {
			assertThat(get("/api/wide", client).statusCode()).isEqualTo(200);
		}
		assertThat(scriptCalls() - before).isEqualTo(5);
	}

	@Test
	void requestThatTheAnnotationDeniesConsumesNothingFromTheRule() throws Exception {
		String client = UUID.randomUUID().toString();
		assertThat(get("/api/annotated", client).statusCode()).isEqualTo(200);
		assertThat(get("/api/annotated", client).statusCode()).isEqualTo(200);
		assertThat(get("/api/annotated", client).statusCode()).isEqualTo(429);
		assertThat(get("/api/annotated", client).statusCode()).isEqualTo(429);
		HttpResponse<String> other = get("/api/other", client);
		assertThat(other.headers().firstValue("RateLimit")).hasValueSatisfying(
				(value) -> assertThat(value).startsWith("\"api\";r=97;"));
	}

	@Test
	void annotationKeyedByAnArgumentIsASecondCallWhenTheMethodIsCalled() throws Exception {
		String client = UUID.randomUUID().toString();
		long before = scriptCalls();
		HttpResponse<String> response = get("/api/by-user?user=" + client, client);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(scriptCalls() - before).isEqualTo(2);
		// One field line for both decisions.
		assertThat(response.headers().allValues("RateLimit-Policy"))
			.containsExactly("\"api\";q=100;w=3600, \"by-user\";q=5;w=3600");
		// A request that never reaches the method (a missing argument: 400) is still decided by the rule.
		before = scriptCalls();
		assertThat(get("/api/by-user", client).statusCode()).isEqualTo(400);
		assertThat(scriptCalls() - before).isEqualTo(1);
	}

	/** EVALSHA and EVAL calls the server has run so far. */
	private long scriptCalls() {
		long calls = 0;
		String stats;
		try (Jedis jedis = new Jedis(this.redis.host(), this.redis.port())) {
			stats = jedis.info("commandstats");
		}
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
				calls += Long.parseLong(line.replaceAll("^cmdstat_[a-z]+:calls=(\\d+),.*", "$1"));
			}
		}
		return calls;
	}

	private HttpResponse<String> get(String path, String client) throws Exception {
		int port = ((WebServerApplicationContext) this.context).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("X-Client", client)
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(DecisionController.class)
	static class DecisionApplication {

		@Bean
		XClient xClient() {
			return new XClient();
		}

	}

	@RestController
	static class DecisionController {

		@RateLimited(name = "annotated", limit = 2, window = "1h", key = CLIENT_KEY)
		@GetMapping("/api/annotated")
		String annotated() {
			return "annotated";
		}

		@RateLimited(name = "wide", limit = 100, window = "1h", key = CLIENT_KEY)
		@GetMapping("/api/wide")
		String wide() {
			return "wide";
		}

		@GetMapping("/api/other")
		String other() {
			return "other";
		}

		/** A Mono, which both stacks serve: on WebFlux a key from the arguments needs one. */
		@RateLimited(name = "by-user", limit = 5, window = "1h", key = "#user")
		@GetMapping("/api/by-user")
		Mono<String> byUser(@RequestParam String user) {
			return Mono.just(user);
		}

	}

}
