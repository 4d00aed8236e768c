package dev.ratelimit.spring.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What clients see when Redis fails, over real HTTP against a Redis server these tests own: fail-open limits let the
 * request through without rate-limit fields within the short Redis timeout, fail-closed limits answer 503 with
 * {@code Retry-After} and a problem body, never a 500; limiting resumes when Redis is back, and a flushed script cache
 * is recovered on the same request.
 *
 * <p>
 * Each test uses fresh client keys ({@code X-Client}), so commands that a paused server runs late (after
 * {@link TestRedis#resume()}) cannot disturb the counts of another step.
 */
class RedisFailureTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	/** Allowance on top of the Redis timeout for connection set-up, the HTTP round trip and a busy machine. */
	private static final Duration MARGIN = Duration.ofMillis(1500);

	private static final String CLIENT_KEY = "#request.getHeader('X-Client')";

	private static final int LIMIT = 3;

	private static TestRedis redis;

	private static ConfigurableApplicationContext context;

	private static HttpClient http;

	private static String baseUrl;

	@BeforeAll
	static void startRedisAndApplication() {
		redis = TestRedis.start();
		context = new SpringApplicationBuilder(FailureTestApplication.class).run("--server.port=0",
				"--server.address=127.0.0.1", "--spring.data.redis.host=" + redis.host(),
				"--spring.data.redis.port=" + redis.port(), "--ratelimit.redis.timeout=" + TIMEOUT.toMillis() + "ms",
				"--ratelimit.redis.unavailable-retry-after=2s",
				"--ratelimit.filter.rules[0].name=rule-open", "--ratelimit.filter.rules[0].paths[0]=/rule/open",
				"--ratelimit.filter.rules[0].limit=" + LIMIT, "--ratelimit.filter.rules[0].window=1h",
				"--ratelimit.filter.rules[0].key=" + CLIENT_KEY, "--ratelimit.filter.rules[1].name=rule-closed",
				"--ratelimit.filter.rules[1].paths[0]=/rule/closed", "--ratelimit.filter.rules[1].limit=" + LIMIT,
				"--ratelimit.filter.rules[1].window=1h", "--ratelimit.filter.rules[1].key=" + CLIENT_KEY,
				"--ratelimit.filter.rules[1].failure-policy=fail-closed");
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		baseUrl = "http://127.0.0.1:" + port;
		http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
	}

	@AfterAll
	static void stopApplicationAndRedis() {
		try {
			if (context != null) {
				context.close();
			}
		}
		finally {
			if (redis != null) {
				redis.close();
			}
		}
	}

	/**
	 * Every test starts with an empty connection pool, so that connections a previous test left stale cannot fail
	 * its requests.
	 */
	@BeforeEach
	void startWithFreshConnections() {
		JedisConnectionFactory connectionFactory = context.getBean(JedisConnectionFactory.class);
		connectionFactory.stop();
		connectionFactory.start();
	}

	@Test
	void limitsApplyWhileRedisIsUp() throws Exception {
		assertLimitingWorks("/open", "open");
		assertLimitingWorks("/closed", "closed");
		assertLimitingWorks("/rule/open", "rule-open");
		assertLimitingWorks("/rule/closed", "rule-closed");
	}

	@Test
	void pausedRedisFailOpenLimitsAnswerWithinTheTimeoutWithoutRateLimitFields() throws Exception {
		String client = newClient();
		assertAllowed(get("/open", client), "open", LIMIT - 1);
		double failuresBefore = redisFailures();
		redis.pause();
		try {
			for (int i = 0; i < 2; i++) {
				assertFailedOpen(get("/open", client));
				assertFailedOpen(get("/rule/open", client));
			}
		}
		finally {
			redis.resume();
		}
		assertThat(redisFailures()).isGreaterThanOrEqualTo(failuresBefore + 4);
		assertLimitingWorks("/open", "open");
		assertLimitingWorks("/rule/open", "rule-open");
	}

	@Test
	void pausedRedisFailClosedLimitsAnswer503() throws Exception {
		String client = newClient();
		assertAllowed(get("/closed", client), "closed", LIMIT - 1);
		redis.pause();
		try {
			for (int i = 0; i < 2; i++) {
				assertFailedClosed(get("/closed", client), "/closed");
				assertFailedClosed(get("/rule/closed", client), "/rule/closed");
			}
		}
		finally {
			redis.resume();
		}
		assertLimitingWorks("/closed", "closed");
		assertLimitingWorks("/rule/closed", "rule-closed");
	}

	@Test
	void stoppedRedisAppliesEachLimitsFailurePolicy() throws Exception {
		String client = newClient();
		assertAllowed(get("/open", client), "open", LIMIT - 1);
		assertAllowed(get("/closed", client), "closed", LIMIT - 1);
		redis.stop();
		try {
			for (int i = 0; i < 2; i++) {
				assertFailedOpen(get("/open", client));
				assertFailedOpen(get("/rule/open", client));
				assertFailedClosed(get("/closed", client), "/closed");
				assertFailedClosed(get("/rule/closed", client), "/rule/closed");
			}
		}
		finally {
			redis.restart();
		}
		assertLimitingWorks("/open", "open");
		assertLimitingWorks("/closed", "closed");
		assertLimitingWorks("/rule/open", "rule-open");
		assertLimitingWorks("/rule/closed", "rule-closed");
	}

	/**
	 * Under concurrency the wait for a pooled connection adds to the Redis timeout: with Spring Boot's default Jedis
	 * pool (8 connections, {@code max-wait} unbounded) 48 concurrent requests queue in waves of 8 × timeout. The short
	 * timeout must bound the whole wait, pool included.
	 */
	@Test
	void concurrentRequestsWhileRedisIsPausedAnswerWithinTheTimeout() throws Exception {
		int concurrency = 48;
		ExecutorService executor = Executors.newFixedThreadPool(concurrency);
		List<Response> responses = new ArrayList<>();
		redis.pause();
		try {
			List<Future<Response>> futures = new ArrayList<>();
			for (int i = 0; i < concurrency; i++) {
				String path = (i % 2 == 0) ? "/open" : "/rule/closed";
				futures.add(executor.submit(() -> get(path, newClient())));
			}
			for (Future<Response> future : futures) {
				responses.add(future.get());
			}
		}
		finally {
			redis.resume();
			executor.shutdownNow();
		}
		for (Response response : responses) {
			if (response.path().equals("/open")) {
				assertFailedOpen(response);
			}
			else {
				assertFailedClosed(response, "/rule/closed");
			}
		}
		assertLimitingWorks("/open", "open");
	}

	/**
	 * A restarted Redis must be used from the first request on. Connections that the pool kept idle while the old
	 * server died are stale; each fails the next request that borrows it (fail-open: unlimited; fail-closed: 503)
	 * although Redis is back.
	 */
	@Test
	void limitingResumesFromTheFirstRequestAfterRedisRestarts() throws Exception {
		int concurrency = 16;
		ExecutorService executor = Executors.newFixedThreadPool(concurrency);
		try {
			List<Future<Response>> futures = new ArrayList<>();
			for (int i = 0; i < concurrency; i++) {
				futures.add(executor.submit(() -> get("/closed", newClient())));
			}
			for (Future<Response> future : futures) {
				assertAllowed(future.get(), "closed", LIMIT - 1);
			}
		}
		finally {
			executor.shutdownNow();
		}
		redis.stop();
		redis.restart();
		assertLimitingWorks("/closed", "closed");
		assertLimitingWorks("/open", "open");
	}

	@Test
	void scriptFlushIsRecoveredOnTheSameRequest() throws Exception {
		for (String[] endpoint : new String[][] { { "/closed", "closed" }, { "/rule/closed", "rule-closed" } }) {
			String client = newClient();
			assertAllowed(get(endpoint[0], client), endpoint[1], 2);
			assertThat(redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
			assertAllowed(get(endpoint[0], client), endpoint[1], 1);
			assertThat(redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
			assertAllowed(get(endpoint[0], client), endpoint[1], 0);
			assertThat(redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
			assertDenied(get(endpoint[0], client), endpoint[1]);
		}
	}

	// --- Assertions

	/** A fresh client gets {@link #LIMIT} requests with rate-limit fields, then a 429. */
	private static void assertLimitingWorks(String path, String name) throws Exception {
		String client = newClient();
		for (int remaining = LIMIT - 1; remaining >= 0; remaining--) {
			assertAllowed(get(path, client), name, remaining);
		}
		assertDenied(get(path, client), name);
	}

	private static void assertAllowed(Response response, String name, long remaining) {
		assertThat(response.status()).as(response.toString()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit-Policy")).as(response.toString())
			.hasValue("\"" + name + "\";q=" + LIMIT + ";w=3600");
		assertThat(response.headers().firstValue("RateLimit")).as(response.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"" + name + "\";r=" + remaining + ";t="));
	}

	private static void assertDenied(Response response, String name) {
		assertThat(response.status()).as(response.toString()).isEqualTo(429);
		assertThat(response.headers().firstValue("Retry-After")).as(response.toString())
			.hasValueSatisfying((value) -> assertThat(Long.parseLong(value)).isPositive());
		assertThat(response.headers().firstValue("RateLimit")).as(response.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"" + name + "\";r=0;t="));
		assertThat(response.headers().firstValue("Content-Type")).as(response.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("application/problem+json"));
		assertThat(response.body()).contains("\"status\":429").contains("\"violated-policies\":[\"" + name + "\"]");
	}

	private static void assertFailedOpen(Response response) {
		assertThat(response.status()).as(response.toString()).isEqualTo(200);
		assertThat(response.elapsed()).as(response.toString()).isLessThan(TIMEOUT.plus(MARGIN));
		assertThat(response.headers().firstValue("RateLimit")).as(response.toString()).isEmpty();
		assertThat(response.headers().firstValue("RateLimit-Policy")).as(response.toString()).isEmpty();
		assertThat(response.headers().firstValue("Retry-After")).as(response.toString()).isEmpty();
	}

	private static void assertFailedClosed(Response response, String path) {
		assertThat(response.status()).as(response.toString()).isEqualTo(503);
		assertThat(response.elapsed()).as(response.toString()).isLessThan(TIMEOUT.plus(MARGIN));
		assertThat(response.headers().firstValue("Retry-After")).as(response.toString()).hasValue("2");
		assertThat(response.headers().firstValue("RateLimit")).as(response.toString()).isEmpty();
		assertThat(response.headers().firstValue("Content-Type")).as(response.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("application/problem+json"));
		assertThat(response.body()).contains("\"status\":503").contains("\"instance\":\"" + path + "\"");
		assertThat(response.body()).doesNotContain("Exception").doesNotContain("\tat ");
	}

	// --- HTTP

	private static String newClient() {
		return UUID.randomUUID().toString();
	}

	private static Response get(String path, String client) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
			.header("X-Client", client)
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		long start = System.nanoTime();
		HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		return new Response(path, response.statusCode(), response.headers(), response.body(), elapsed);
	}

	private static double redisFailures() {
		return context.getBean(MeterRegistry.class).counter("ratelimit.redis.failures").count();
	}

	record Response(String path, int status, HttpHeaders headers, String body, Duration elapsed) {

		@Override
		public String toString() {
			return "GET " + this.path + " -> " + this.status + " in " + this.elapsed.toMillis() + " ms, headers "
					+ this.headers.map() + ", body " + this.body;
		}

	}

	// --- The application

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(FailureTestController.class)
	static class FailureTestApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@RestController
	static class FailureTestController {

		@RateLimited(name = "open", limit = LIMIT, window = "1h", key = CLIENT_KEY, failurePolicy = "fail-open")
		@GetMapping("/open")
		String open() {
			return "open";
		}

		@RateLimited(name = "closed", limit = LIMIT, window = "1h", key = CLIENT_KEY, failurePolicy = "fail-closed")
		@GetMapping("/closed")
		String closed() {
			return "closed";
		}

		@GetMapping("/rule/open")
		String ruleOpen() {
			return "rule-open";
		}

		@GetMapping("/rule/closed")
		String ruleClosed() {
			return "rule-closed";
		}

	}

}
