package dev.ratelimit.spring.redis;

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
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.test.app.XClient;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What clients see when Redis fails, over real HTTP against a Redis server these tests own, for each client library
 * of the limiter and each web stack: fail-open limits let the request through without rate-limit fields, fail-closed limits answer 503
 * with {@code Retry-After} and a problem body, never a 500; each request spends at most one timeout in the limiter,
 * whatever the number of client keys, also right after a start with Redis down or frozen; limiting resumes from the
 * first request when Redis is back, and a flushed script cache never lets a request through undecided.
 *
 * <p>
 * The timeout is long against machine noise (4 s) and the bound is half a second short of two timeouts (7.5 s), so
 * that a request waiting out two timeouts (8 s) fails, and one timeout passes with 3.5 s of margin for a loaded
 * machine (48 requests at once, every core busy: 6.1 s). Tests of exact admission run with the same long timeout: a
 * healthy but loaded Redis must never look failed to them. Each test uses fresh client keys ({@code X-Client}), so
 * commands that a paused server runs late (after {@link TestRedis#resume()}) cannot disturb the counts of another
 * step.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedisFailureContract {

	static final Duration TIMEOUT = Duration.ofSeconds(4);

	/** One timeout and a margin for a loaded machine (3.5 s); two timeouts exceed it. */
	static final Duration BOUND = bound(TIMEOUT);

	/**
	 * The longest a request may take with Redis failing, for a limiter {@code timeout}: half a second short of two
	 * timeouts, so that waiting out two fails while one passes with the rest as a margin for a loaded machine.
	 */
	static Duration bound(Duration timeout) {
		return timeout.multipliedBy(2).minusMillis(500);
	}

	/** The client named by {@code X-Client}, through a bean that reads it on either web stack. */
	static final String CLIENT_KEY = "@xClient.of(#request)";

	static final int LIMIT = 3;

	private TestRedis redis;

	private ConfigurableApplicationContext context;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	/** {@code lettuce} or {@code jedis}. */
	abstract String client();

	/** {@code servlet} (Spring MVC) or {@code reactive} (WebFlux). */
	String webApplicationType() {
		return "servlet";
	}

	@BeforeAll
	void startRedisAndApplication() {
		this.redis = TestRedis.start();
		this.context = start(this.redis);
	}

	@AfterAll
	void stopApplicationAndRedis() {
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

	private ConfigurableApplicationContext start(TestRedis redis) {
		return new SpringApplicationBuilder(FailureTestApplication.class).run("--server.port=0",
				"--spring.main.web-application-type=" + webApplicationType(),
				"--server.address=127.0.0.1", "--spring.data.redis.host=" + redis.host(),
				"--spring.data.redis.port=" + redis.port(), "--ratelimit.redis.client=" + client(),
				"--ratelimit.redis.timeout=" + TIMEOUT.toMillis() + "ms", "--ratelimit.redis.connect-timeout=1s",
				"--ratelimit.redis.unavailable-retry-after=2s", "--ratelimit.filter.rules[0].name=rule-open",
				"--ratelimit.filter.rules[0].paths[0]=/rule/open", "--ratelimit.filter.rules[0].paths[1]=/two-keys",
				"--ratelimit.filter.rules[0].limit=" + LIMIT, "--ratelimit.filter.rules[0].window=1h",
				"--ratelimit.filter.rules[0].key=" + CLIENT_KEY, "--ratelimit.filter.rules[1].name=rule-closed",
				"--ratelimit.filter.rules[1].paths[0]=/rule/closed", "--ratelimit.filter.rules[1].limit=" + LIMIT,
				"--ratelimit.filter.rules[1].window=1h", "--ratelimit.filter.rules[1].key=" + CLIENT_KEY,
				"--ratelimit.filter.rules[1].failure-policy=fail-closed");
	}

	@Test
	void limitsApplyWhileRedisIsUp() throws Exception {
		assertLimitingWorks("/open", "open");
		assertLimitingWorks("/closed", "closed");
		assertLimitingWorks("/rule/open", "rule-open");
		assertLimitingWorks("/rule/closed", "rule-closed");
	}

	@Test
	void pausedRedisFailOpenLimitsAnswerWithinOneTimeoutWithoutRateLimitFields() throws Exception {
		String client = newClient();
		assertAllowed(get("/open", client), "open", LIMIT - 1);
		double failuresBefore = redisFailures();
		this.redis.pause();
		try {
			assertFailedOpen(get("/open", client));
			assertFailedOpen(get("/rule/open", client));
			// A rule keyed by X-Client and an annotation keyed by IP: two script calls, one deadline.
			assertFailedOpen(get("/two-keys", client));
		}
		finally {
			this.redis.resume();
		}
		assertThat(redisFailures()).isGreaterThanOrEqualTo(failuresBefore + 3);
		assertLimitingWorks("/open", "open");
		assertLimitingWorks("/rule/open", "rule-open");
	}

	@Test
	void pausedRedisFailClosedLimitsAnswer503WithinOneTimeout() throws Exception {
		String client = newClient();
		assertAllowed(get("/closed", client), "closed", LIMIT - 1);
		this.redis.pause();
		try {
			assertFailedClosed(get("/closed", client), "/closed");
			assertFailedClosed(get("/rule/closed", client), "/rule/closed");
		}
		finally {
			this.redis.resume();
		}
		assertLimitingWorks("/closed", "closed");
		assertLimitingWorks("/rule/closed", "rule-closed");
	}

	@Test
	void stoppedRedisAppliesEachLimitsFailurePolicy() throws Exception {
		String client = newClient();
		assertAllowed(get("/open", client), "open", LIMIT - 1);
		assertAllowed(get("/closed", client), "closed", LIMIT - 1);
		this.redis.stop();
		try {
			for (int i = 0; i < 2; i++) {
				assertFailedOpen(get("/open", client));
				assertFailedOpen(get("/rule/open", client));
				assertFailedOpen(get("/two-keys", client));
				assertFailedClosed(get("/closed", client), "/closed");
				assertFailedClosed(get("/rule/closed", client), "/rule/closed");
			}
		}
		finally {
			this.redis.restart();
		}
		assertLimitingWorks("/open", "open");
		assertLimitingWorks("/closed", "closed");
		assertLimitingWorks("/rule/open", "rule-open");
		assertLimitingWorks("/rule/closed", "rule-closed");
	}

	/**
	 * A call charged by outcome (a failed login) reads its limit before it runs and charges it after: against a
	 * paused Redis the two share the request's one timeout (each waiting a full one took two).
	 */
	@Test
	void pausedRedisChargedByOutcomeAnswersWithinOneTimeout() throws Exception {
		String client = newClient();
		Response first = get("/login", client);
		assertThat(first.status()).as(first.toString()).isEqualTo(401);
		assertThat(first.headers().firstValue("RateLimit")).as(first.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"login\";r=" + (LIMIT - 1) + ";t="));
		this.redis.pause();
		Response paused;
		try {
			paused = get("/login", client);
		}
		finally {
			this.redis.resume();
		}
		assertThat(paused.status()).as(paused.toString()).isEqualTo(401);
		assertThat(paused.elapsed()).as(paused.toString()).isLessThan(BOUND);
		assertThat(paused.headers().firstValue("RateLimit")).as(paused.toString()).isEmpty();
	}

	/**
	 * The time a call charged by outcome takes is not Redis's: a failed login slower than the whole timeout is still
	 * charged (else slow failures would never count).
	 */
	@Test
	void aCallSlowerThanTheTimeoutIsStillChargedByOutcome() throws Exception {
		String client = newClient();
		Response slow = get("/login?sleepMs=" + TIMEOUT.plusMillis(300).toMillis(), client);
		assertThat(slow.status()).as(slow.toString()).isEqualTo(401);
		assertThat(slow.headers().firstValue("RateLimit")).as(slow.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"login\";r=" + (LIMIT - 1) + ";t="));
		Response next = get("/login", client);
		assertThat(next.headers().firstValue("RateLimit")).as(next.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"login\";r=" + (LIMIT - 2) + ";t="));
	}

	/** Many requests at once against a paused Redis: none waits for another's timeout (a pool, a queue). */
	@Test
	void concurrentRequestsWhileRedisIsPausedAnswerWithinOneTimeout() throws Exception {
		int concurrency = 48;
		List<Response> responses;
		this.redis.pause();
		try {
			responses = concurrently(concurrency, (i) -> get((i % 2 == 0) ? "/open" : "/rule/closed", newClient()));
		}
		finally {
			this.redis.resume();
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
	 * A restarted Redis must be used from the first request on: connections to the old server are dead, and a
	 * client that waits for them to come back, or hands them out, would let requests through (fail-open) or refuse
	 * them (fail-closed) although Redis is back.
	 */
	@Test
	void limitingResumesFromTheFirstRequestAfterRedisRestarts() throws Exception {
		for (Response response : concurrently(16, (i) -> get("/closed", newClient()))) {
			assertAllowed(response, "closed", LIMIT - 1);
		}
		this.redis.stop();
		this.redis.restart();
		assertLimitingWorks("/closed", "closed");
		assertLimitingWorks("/open", "open");
	}

	@Test
	void scriptFlushIsRecoveredOnTheSameRequest() throws Exception {
		for (String[] endpoint : new String[][] { { "/closed", "closed" }, { "/rule/closed", "rule-closed" } }) {
			String client = newClient();
			assertAllowed(get(endpoint[0], client), endpoint[1], 2);
			assertThat(this.redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
			assertAllowed(get(endpoint[0], client), endpoint[1], 1);
			assertThat(this.redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
			assertAllowed(get(endpoint[0], client), endpoint[1], 0);
			assertThat(this.redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
			assertDenied(get(endpoint[0], client), endpoint[1]);
		}
	}

	/**
	 * Right after {@code SCRIPT FLUSH}, concurrent requests of one client each reload the script on their own call:
	 * every one is decided, exactly {@link #LIMIT} admitted, none let through undecided.
	 */
	@Test
	void concurrentRequestsAfterAScriptFlushAreAllDecided() throws Exception {
		for (int round = 0; round < 5; round++) {
			String client = newClient();
			assertThat(this.redis.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
			List<Response> responses = concurrently(20, (i) -> get("/open", client));
			assertThat(responses).as("responses without rate-limit fields failed open")
				.allSatisfy((response) -> assertThat(response.headers().firstValue("RateLimit")).as(response.toString())
					.isPresent());
			assertThat(responses.stream().filter((response) -> response.status() == 200)).hasSize(LIMIT);
			assertThat(responses.stream().filter((response) -> response.status() == 429)).hasSize(20 - LIMIT);
		}
	}

	/**
	 * An application started while Redis is down or frozen starts, and its first limited request spends at most one
	 * timeout in the limiter; once Redis answers, the next request is limited.
	 */
	@Test
	void firstRequestsAfterAStartWithRedisDownOrFrozenAnswerWithinOneTimeout() throws Exception {
		try (TestRedis down = TestRedis.start()) {
			down.stop();
			try (ConfigurableApplicationContext started = start(down)) {
				String base = baseUrl(started);
				assertFailedOpen(get(base, "/open", newClient()));
				assertFailedClosed(get(base, "/closed", newClient()), "/closed");
				down.restart();
				assertLimitingWorks(base, "/closed", "closed");
			}
			down.pause();
			try (ConfigurableApplicationContext started = start(down)) {
				String base = baseUrl(started);
				assertFailedOpen(get(base, "/open", newClient()));
				assertFailedOpen(get(base, "/two-keys", newClient()));
				down.resume();
				assertLimitingWorks(base, "/closed", "closed");
			}
			finally {
				down.resume();
			}
		}
	}

	// --- Assertions

	/** A fresh client gets {@link #LIMIT} requests with rate-limit fields, then a 429. */
	private void assertLimitingWorks(String path, String name) throws Exception {
		assertLimitingWorks(baseUrl(this.context), path, name);
	}

	private void assertLimitingWorks(String base, String path, String name) throws Exception {
		String client = newClient();
		for (int remaining = LIMIT - 1; remaining >= 0; remaining--) {
			assertAllowed(get(base, path, client), name, remaining);
		}
		assertDenied(get(base, path, client), name);
	}

	private static void assertAllowed(Response response, String name, long remaining) {
		assertThat(response.status()).as(response.toString()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit-Policy")).as(response.toString())
			.hasValue("\"" + name + "\";q=" + LIMIT + ";w=3600");
		assertThat(response.headers().firstValue("RateLimit")).as(response.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"" + name + "\";r=" + remaining + ";t="));
	}

	static void assertDenied(Response response, String name) {
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
		assertFailedOpen(response, BOUND);
	}

	/** Let through without rate-limit fields, within {@code bound}. */
	static void assertFailedOpen(Response response, Duration bound) {
		assertThat(response.status()).as(response.toString()).isEqualTo(200);
		assertThat(response.elapsed()).as(response.toString()).isLessThan(bound);
		assertThat(response.headers().firstValue("RateLimit")).as(response.toString()).isEmpty();
		assertThat(response.headers().firstValue("RateLimit-Policy")).as(response.toString()).isEmpty();
		assertThat(response.headers().firstValue("Retry-After")).as(response.toString()).isEmpty();
	}

	private static void assertFailedClosed(Response response, String path) {
		assertFailedClosed(response, path, BOUND);
	}

	/** The fail-closed 503 (Retry-After 2 s, a problem body, no stack trace), within {@code bound}. */
	static void assertFailedClosed(Response response, String path, Duration bound) {
		assertThat(response.status()).as(response.toString()).isEqualTo(503);
		assertThat(response.elapsed()).as(response.toString()).isLessThan(bound);
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

	private static String baseUrl(ConfigurableApplicationContext context) {
		return "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	private Response get(String path, String client) throws IOException, InterruptedException {
		return get(baseUrl(this.context), path, client);
	}

	private Response get(String base, String path, String client) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
			.header("X-Client", client)
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		long start = System.nanoTime();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		return new Response(path, response.statusCode(), response.headers(), response.body(), elapsed);
	}

	/** Sends {@code count} requests at once, one thread each, and returns their responses in order. */
	static List<Response> concurrently(int count, Request request) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(count);
		try {
			List<Future<Response>> futures = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				int index = i;
				futures.add(executor.submit((Callable<Response>) () -> request.send(index)));
			}
			List<Response> responses = new ArrayList<>();
			for (Future<Response> future : futures) {
				responses.add(future.get());
			}
			return responses;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private double redisFailures() {
		return this.context.getBean(MeterRegistry.class).counter("ratelimit.redis.failures").count();
	}

	interface Request {

		Response send(int index) throws Exception;

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
	@Import({ FailureTestController.class, ServletLoginController.class, ReactiveLoginController.class })
	static class FailureTestApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		XClient xClient() {
			return new XClient();
		}

		/**
		 * Reactor Netty resources of each application's own: with the global ones (Boot's default), closing one of
		 * the applications this test starts would stop the event loops of the others. Without a quiet period, closing
		 * an application does not wait 2 s (Reactor Netty's default) for tasks that no test sends.
		 */
		@Bean
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory factory = new ReactorResourceFactory();
			factory.setUseGlobalResources(false);
			factory.setShutdownQuietPeriod(Duration.ZERO);
			return factory;
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

		/** Under rule-open (keyed by X-Client) and an annotation keyed by the client IP. */
		@RateLimited(name = "by-ip", limit = 1000, window = "1h", failurePolicy = "fail-open")
		@GetMapping("/two-keys")
		String twoKeys() {
			return "two-keys";
		}

	}

	/** A failed login: 401, charged to its limit by outcome, after {@code sleepMs}. */
	@ResponseStatus(HttpStatus.UNAUTHORIZED)
	static class LoginFailed extends RuntimeException {

		LoginFailed() {
			super("bad credentials", null, false, false);
		}

	}

	@RestController
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	static class ServletLoginController {

		@RateLimited(name = "login", limit = LIMIT, window = "1h", key = CLIENT_KEY, chargeOn = LoginFailed.class)
		@GetMapping("/login")
		String login(@RequestParam(defaultValue = "0") long sleepMs) throws InterruptedException {
			Thread.sleep(sleepMs);
			throw new LoginFailed();
		}

	}

	@RestController
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	static class ReactiveLoginController {

		@RateLimited(name = "login", limit = LIMIT, window = "1h", key = CLIENT_KEY, chargeOn = LoginFailed.class)
		@GetMapping("/login")
		Mono<String> login(@RequestParam(defaultValue = "0") long sleepMs) {
			return Mono.delay(Duration.ofMillis(sleepMs)).then(Mono.error(new LoginFailed()));
		}

	}

}
