package dev.ratelimit.spring.redis;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.redis.RedisFailureContract.FailureTestApplication;
import dev.ratelimit.spring.redis.RedisFailureContract.Response;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code fail-local} failure policy over real HTTP against a Redis server this test owns, on Spring MVC with
 * Lettuce ({@link WebFluxFailLocalIntegrationTests} runs it on WebFlux): while Redis fails, a fail-local limit is decided by
 * the instance alone with its share of the limit ({@code ratelimit.fail-local.instances=2}: 4 per hour becomes 2),
 * after at most one timeout; the circuit breaker then spares the following requests the wait; once Redis answers
 * again, limits are counted in Redis, shared by the instances, from there. A local denial is the usual 429; a
 * fail-closed limit among the limits of one client key makes it a 503 all the same, a fail-open one is skipped; the
 * local decisions are counted ({@code ratelimit.decisions}, outcomes {@code local-allowed} and {@code local-denied}).
 *
 * <p>
 * Two instances of one application share the Redis server and its keys, as a deployment would. The steady one
 * has a probe interval far longer than any test: once its breaker is open, only a request that is not all
 * fail-local asks Redis, so "it did not ask Redis" is deterministic (the Redis failures it counts stay as they
 * were, and a request to a frozen Redis could not answer before the timeout). The probing one has a short probe
 * interval, to show the return to Redis by a probe. Each step uses fresh client keys ({@code X-Client}): commands
 * that a paused server runs late cannot disturb the counts of another step.
 *
 * <p>
 * The timeout is long against machine noise (2 s) and the bound half a second short of two timeouts (3.5 s,
 * {@link RedisFailureContract#bound}), so that a request waiting out two timeouts fails even on a loaded machine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailLocalIntegrationTests {

	static final Duration TIMEOUT = Duration.ofSeconds(2);

	/** One timeout and a margin for a loaded machine (1.5 s); two timeouts exceed it. */
	static final Duration BOUND = RedisFailureContract.bound(TIMEOUT);

	/** The probing instance's {@code ratelimit.fail-local.probe-interval}. */
	static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

	/** The steady instance's: longer than the whole test class. */
	static final Duration STEADY_PROBE_INTERVAL = Duration.ofMinutes(30);

	/** A request not answered after this long asks a frozen Redis: a local decision takes milliseconds. */
	static final Duration PROBE_PENDING = TIMEOUT.dividedBy(2);

	/** For a loaded machine, on top of what the return to Redis may take by design. */
	static final Duration MARGIN = Duration.ofSeconds(3);

	static final String CLIENT_KEY = RedisFailureContract.CLIENT_KEY;

	/** Of every fail-local limit here. */
	static final int LIMIT = 4;

	/** {@code ratelimit.fail-local.instances}. */
	static final int INSTANCES = 2;

	/** What each instance allows alone of a fail-local limit while Redis fails: 4 / 2. */
	static final int SHARE = 2;

	/** The fail-open limit of {@link RedisFailureContract}'s {@code /open}, for contrast. */
	static final int OPEN_LIMIT = RedisFailureContract.LIMIT;

	private TestRedis redis;

	private ConfigurableApplicationContext steady;

	private ConfigurableApplicationContext probing;

	/** What the starter logs about Redis failing and answering again, during one test. */
	private final ListAppender<ILoggingEvent> events = new ListAppender<>();

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	/** {@code servlet} (Spring MVC) or {@code reactive} (WebFlux). */
	String webApplicationType() {
		return "servlet";
	}

	@BeforeAll
	void startRedisAndApplications() {
		this.redis = TestRedis.start();
		this.steady = start(STEADY_PROBE_INTERVAL);
		this.probing = start(PROBE_INTERVAL);
	}

	@AfterAll
	void stopApplicationsAndRedis() {
		try {
			for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { this.steady,
					this.probing }) {
				if (context != null) {
					context.close();
				}
			}
		}
		finally {
			if (this.redis != null) {
				this.redis.close();
			}
		}
	}

	@BeforeEach
	void recordEvents() {
		this.events.list.clear();
		this.events.start();
		eventsLogger().addAppender(this.events);
	}

	/** Whatever a test did, both instances end with Redis up and their breakers closed. */
	@AfterEach
	void backToRedis() throws Exception {
		try {
			closeBreaker(this.steady);
			closeBreaker(this.probing);
		}
		finally {
			eventsLogger().detachAppender(this.events);
		}
	}

	private static Logger eventsLogger() {
		return (Logger) LoggerFactory.getLogger("dev.ratelimit.spring.enforce.RateLimitEventRecorder");
	}

	/** The INFO logs, of either instance, that Redis answers again after failing. */
	private long answeredAgainLogs() {
		List<ILoggingEvent> logged;
		// Appended under the appender's monitor, on the threads that complete decisions.
		synchronized (this.events) {
			logged = List.copyOf(this.events.list);
		}
		return logged.stream()
			.filter((event) -> event.getLevel() == Level.INFO
					&& event.getFormattedMessage().startsWith("Redis answers again"))
			.count();
	}

	private ConfigurableApplicationContext start(Duration probeInterval) {
		return new SpringApplicationBuilder(FailureTestApplication.class, FailLocalController.class).run(
				"--server.port=0", "--spring.main.web-application-type=" + webApplicationType(),
				"--server.address=127.0.0.1", "--spring.data.redis.host=" + this.redis.host(),
				"--spring.data.redis.port=" + this.redis.port(), "--ratelimit.redis.client=lettuce",
				"--ratelimit.redis.timeout=" + TIMEOUT.toMillis() + "ms", "--ratelimit.redis.connect-timeout=1s",
				"--ratelimit.redis.unavailable-retry-after=2s", "--ratelimit.fail-local.instances=" + INSTANCES,
				"--ratelimit.fail-local.probe-interval=" + probeInterval.toMillis() + "ms",
				"--ratelimit.filter.rules[0].name=rule-local", "--ratelimit.filter.rules[0].paths[0]=/local/rule",
				"--ratelimit.filter.rules[0].limit=" + LIMIT, "--ratelimit.filter.rules[0].window=1h",
				"--ratelimit.filter.rules[0].key=" + CLIENT_KEY,
				"--ratelimit.filter.rules[0].failure-policy=fail-local");
	}

	@Test
	void redisUpDecidesWithTheWholeLimitSharedByTheInstances() throws Exception {
		for (String[] endpoint : new String[][] { { "/local/rule", "rule-local" },
				{ "/local/annotated", "annotated-local" }, { "/local/bucket", "bucket-local" } }) {
			String client = newClient();
			// Alternately on the two instances: one budget of 4 in Redis.
			for (int remaining = LIMIT - 1; remaining >= 0; remaining--) {
				assertAllowed(get((remaining % 2 == 0) ? this.steady : this.probing, endpoint[0], client), endpoint[1],
						LIMIT, remaining);
			}
			assertDenied(get(this.steady, endpoint[0], client), endpoint[1], LIMIT);
			assertDenied(get(this.probing, endpoint[0], client), endpoint[1], LIMIT);
		}
		String client = newClient();
		Response mixed = get(this.steady, "/mixed", client);
		assertAllowed(mixed, "mixed-local", LIMIT, LIMIT - 1);
		assertThat(String.join(", ", mixed.headers().allValues("RateLimit-Policy"))).as(mixed.toString())
			.isEqualTo("\"mixed-local\";q=4;w=3600, \"mixed-closed\";q=4;w=3600");
		Response withOpen = get(this.steady, "/local-and-open", client);
		assertAllowed(withOpen, "with-open-local", LIMIT, LIMIT - 1);
		assertThat(String.join(", ", withOpen.headers().allValues("RateLimit-Policy"))).as(withOpen.toString())
			.isEqualTo("\"with-open-local\";q=4;w=3600, \"with-open-open\";q=4;w=3600");
	}

	@Test
	void stoppedRedisDecidesFailLocalLimitsWithTheLocalShare() throws Exception {
		String client = newClient();
		Counts before = counts(this.steady);
		this.redis.stop();
		try {
			Response first = get(this.steady, "/local/rule", client);
			assertThat(first.elapsed()).as(first.toString()).isLessThan(BOUND);
			assertAllowed(first, "rule-local", SHARE, 1);
			double failures = redisFailures(this.steady);
			assertThat(failures).isEqualTo(before.redisFailures() + 1);
			assertAllowed(get(this.steady, "/local/rule", client), "rule-local", SHARE, 0);
			assertDenied(get(this.steady, "/local/rule", client), "rule-local", SHARE);
			// An annotation, and a token bucket, each its own local budget of the same client.
			assertAllowed(get(this.steady, "/local/annotated", client), "annotated-local", SHARE, 1);
			assertAllowed(get(this.steady, "/local/annotated", client), "annotated-local", SHARE, 0);
			assertDenied(get(this.steady, "/local/annotated", client), "annotated-local", SHARE);
			assertAllowed(get(this.steady, "/local/bucket", client), "bucket-local", SHARE, 1);
			assertAllowed(get(this.steady, "/local/bucket", client), "bucket-local", SHARE, 0);
			assertDenied(get(this.steady, "/local/bucket", client), "bucket-local", SHARE);
			// Another client has its own local budget.
			assertAllowed(get(this.steady, "/local/rule", newClient()), "rule-local", SHARE, 1);
			assertThat(redisFailures(this.steady)).as("requests decided locally while the breaker is open ask no Redis")
				.isEqualTo(failures);
			Counts local = counts(this.steady);
			assertThat(local.localAllowed() - before.localAllowed()).isEqualTo(7);
			assertThat(local.localDenied() - before.localDenied()).isEqualTo(3);
			assertThat(local.allowed() - before.allowed()).isZero();
			assertThat(local.denied() - before.denied()).isZero();
			// A fail-closed limit, or no fail-local one: Redis is asked, and each limit's own policy applies.
			assertFailedClosed(get(this.steady, "/mixed", client), "/mixed");
			assertFailedOpen(get(this.steady, "/open", client));
			assertThat(counts(this.steady)).as("neither the 503 nor the request let through is a decision")
				.isEqualTo(local.withRedisFailures(failures + 2));
			// A fail-local limit and a fail-open one: decided without asking Redis, as after a failure: the fail-open
			// limit skipped, the fail-local one decided locally, only its fields.
			Response withOpen = get(this.steady, "/local-and-open", client);
			assertThat(withOpen.elapsed()).as(withOpen.toString()).isLessThan(BOUND);
			assertAllowed(withOpen, "with-open-local", SHARE, 1);
			assertThat(withOpen.headers().allValues("RateLimit-Policy")).as(withOpen.toString())
				.containsExactly("\"with-open-local\";q=2;w=3600");
			assertThat(counts(this.steady)).isEqualTo(new Counts(local.allowed(), local.denied(),
					local.localAllowed() + 1, local.localDenied(), failures + 2));
		}
		finally {
			this.redis.restart();
		}
	}

	@Test
	void pausedRedisCostsOneTimeoutThenFailLocalLimitsAreDecidedWithoutAskingIt() throws Exception {
		String client = newClient();
		Counts before = counts(this.steady);
		this.redis.pause();
		try {
			Response first = get(this.steady, "/local/rule", client);
			assertThat(first.elapsed()).as(first.toString()).isLessThan(BOUND);
			assertAllowed(first, "rule-local", SHARE, 1);
			double failures = redisFailures(this.steady);
			assertThat(failures).isEqualTo(before.redisFailures() + 1);
			// A request that asked the frozen Redis could not answer before the timeout.
			assertQuick(get(this.steady, "/local/rule", client), "rule-local", 0);
			Response denied = get(this.steady, "/local/rule", client);
			assertThat(denied.elapsed()).as(denied.toString()).isLessThan(TIMEOUT);
			assertDenied(denied, "rule-local", SHARE);
			assertQuick(get(this.steady, "/local/annotated", client), "annotated-local", 1);
			List<Response> concurrent = concurrently(16, (i) -> get(this.steady, "/local/annotated", newClient()));
			for (Response response : concurrent) {
				assertQuick(response, "annotated-local", 1);
			}
			assertThat(redisFailures(this.steady)).as("requests decided locally while the breaker is open ask no Redis")
				.isEqualTo(failures);
			Counts local = counts(this.steady);
			assertThat(local.localAllowed() - before.localAllowed()).isEqualTo(3 + 16);
			assertThat(local.localDenied() - before.localDenied()).isEqualTo(1);
			assertThat(local.allowed() - before.allowed()).isZero();
			// A fail-closed limit among them: Redis is asked, one timeout, and fail-closed wins.
			assertFailedClosed(get(this.steady, "/mixed", client), "/mixed");
			assertThat(redisFailures(this.steady)).isEqualTo(failures + 1);
		}
		finally {
			this.redis.resume();
		}
	}

	/**
	 * A steady instance's breaker stays open for its long probe interval, but any request that asks Redis, and gets
	 * an answer, closes it: the next fail-local request is decided by Redis with the whole limit.
	 */
	@Test
	void anyRedisAnswerClosesTheBreaker() throws Exception {
		this.redis.stop();
		try {
			assertAllowed(get(this.steady, "/local/rule", newClient()), "rule-local", SHARE, 1);
		}
		finally {
			this.redis.restart();
		}
		String client = newClient();
		assertAllowed(get(this.steady, "/local/rule", client), "rule-local", SHARE, 1);
		assertThat(answeredAgainLogs()).isZero();
		closeBreaker(this.steady);
		assertThat(answeredAgainLogs()).isOne();
		assertAllowed(get(this.steady, "/local/rule", client), "rule-local", LIMIT, LIMIT - 1);
	}

	@Test
	void probeReturnsToRedisAfterARestart() throws Exception {
		this.redis.stop();
		try {
			assertAllowed(get(this.probing, "/local/rule", newClient()), "rule-local", SHARE, 1);
		}
		finally {
			this.redis.restart();
		}
		assertReturnsToRedis();
	}

	/**
	 * Once the probe interval has passed, one request asks the frozen Redis (the probe) and waits for it, while
	 * requests arriving meanwhile are decided locally; when Redis resumes, it answers the probe, which is decided by
	 * Redis with the whole limit and closes the breaker.
	 */
	@Test
	void oneRequestProbesAFrozenRedisWhileTheOthersStayLocal() throws Exception {
		CompletableFuture<Response> probe;
		this.redis.pause();
		try {
			Response first = get(this.probing, "/local/rule", newClient());
			assertThat(first.elapsed()).as(first.toString()).isLessThan(BOUND);
			assertAllowed(first, "rule-local", SHARE, 1);
			probe = nextProbe();
			List<Response> meanwhile = concurrently(8, (i) -> get(this.probing, "/local/annotated", newClient()));
			for (Response response : meanwhile) {
				assertQuick(response, "annotated-local", 1);
			}
			assertThat(probe).as("the probe waits for Redis while the others are decided").isNotDone();
		}
		finally {
			this.redis.resume();
		}
		Response probed = probe.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(probed.elapsed()).as(probed.toString()).isLessThan(BOUND);
		assertAllowed(probed, "rule-local", LIMIT, LIMIT - 1);
		assertThat(answeredAgainLogs()).isOne();
		assertCountedInRedis();
	}

	/**
	 * Requests of the probing instance, one after the other, until one has not been answered after
	 * {@link #PROBE_PENDING}: Redis is frozen, so that one is the probe, sent once the probe interval has passed.
	 * Until then each is decided locally, at once.
	 */
	private CompletableFuture<Response> nextProbe() throws Exception {
		long deadline = System.nanoTime() + PROBE_INTERVAL.plus(MARGIN).toNanos();
		while (true) {
			CompletableFuture<Response> request = send(this.probing, "/local/rule", newClient());
			Response local;
			try {
				local = request.get(PROBE_PENDING.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException pending) {
				return request;
			}
			assertAllowed(local, "rule-local", SHARE, 1);
			assertThat(System.nanoTime() - deadline).as("a probe once the interval has passed").isNegative();
		}
	}

	/**
	 * Redis answers again (just restarted): within the probe interval, one timeout (a probe sent just before) and a
	 * margin, a fail-local request of the probing instance is decided by Redis; every request until then is answered
	 * within one timeout, locally. From there the limits count in Redis, shared by both instances.
	 */
	private void assertReturnsToRedis() throws Exception {
		long deadline = System.nanoTime() + PROBE_INTERVAL.plus(TIMEOUT).plus(MARGIN).toNanos();
		while (true) {
			Response response = get(this.probing, "/local/rule", newClient());
			assertThat(response.elapsed()).as(response.toString()).isLessThan(BOUND);
			if (response.headers().firstValue("RateLimit-Policy").orElse("").contains(";q=" + LIMIT + ";")) {
				assertAllowed(response, "rule-local", LIMIT, LIMIT - 1);
				break;
			}
			assertAllowed(response, "rule-local", SHARE, 1);
			assertThat(System.nanoTime() - deadline).as("decided by Redis again in time").isNegative();
		}
		assertThat(answeredAgainLogs()).isOne();
		assertCountedInRedis();
	}

	/** A fresh client's limit, counted in Redis: one budget of the whole limit for both instances. */
	private void assertCountedInRedis() throws Exception {
		String client = newClient();
		for (int remaining = LIMIT - 1; remaining >= 0; remaining--) {
			assertAllowed(get((remaining % 2 == 0) ? this.steady : this.probing, "/local/rule", client), "rule-local",
					LIMIT, remaining);
		}
		assertDenied(get(this.probing, "/local/rule", client), "rule-local", LIMIT);
		assertDenied(get(this.steady, "/local/rule", client), "rule-local", LIMIT);
	}

	// --- Assertions

	private static void assertAllowed(Response response, String name, long quota, long remaining) {
		assertThat(response.status()).as(response.toString()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit-Policy")).as(response.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"" + name + "\";q=" + quota + ";w=3600"));
		assertThat(response.headers().firstValue("RateLimit")).as(response.toString())
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"" + name + "\";r=" + remaining + ";t="));
		assertThat(response.headers().firstValue("Retry-After")).as(response.toString()).isEmpty();
	}

	/** Decided locally, without the wait for a frozen Redis. */
	private static void assertQuick(Response response, String name, long remaining) {
		assertThat(response.elapsed()).as(response.toString()).isLessThan(TIMEOUT);
		assertAllowed(response, name, SHARE, remaining);
	}

	private static void assertDenied(Response response, String name, long quota) {
		RedisFailureContract.assertDenied(response, name);
		assertThat(response.headers().allValues("RateLimit-Policy")).as(response.toString())
			.containsExactly("\"" + name + "\";q=" + quota + ";w=3600");
	}

	private static void assertFailedOpen(Response response) {
		RedisFailureContract.assertFailedOpen(response, BOUND);
	}

	private static void assertFailedClosed(Response response, String path) {
		RedisFailureContract.assertFailedClosed(response, path, BOUND);
	}

	/**
	 * Asks Redis through the fail-open limit (not fail-local: it asks Redis even while the breaker is open) until
	 * Redis decides it, which closes the breaker.
	 */
	private void closeBreaker(ConfigurableApplicationContext context) throws Exception {
		long deadline = System.nanoTime() + TIMEOUT.plus(MARGIN).toNanos();
		Response response = get(context, "/open", newClient());
		while (response.headers().firstValue("RateLimit").isEmpty()) {
			assertThat(response.status()).as(response.toString()).isEqualTo(200);
			assertThat(System.nanoTime() - deadline).as("Redis answers again in time: " + response).isNegative();
			response = get(context, "/open", newClient());
		}
		assertThat(response.headers().firstValue("RateLimit-Policy")).as(response.toString())
			.hasValue("\"open\";q=" + OPEN_LIMIT + ";w=3600");
	}

	// --- Metrics

	record Counts(double allowed, double denied, double localAllowed, double localDenied, double redisFailures) {

		Counts withRedisFailures(double redisFailures) {
			return new Counts(this.allowed, this.denied, this.localAllowed, this.localDenied, redisFailures);
		}

	}

	private static Counts counts(ConfigurableApplicationContext context) {
		return new Counts(decisions(context, "allowed"), decisions(context, "denied"),
				decisions(context, "local-allowed"), decisions(context, "local-denied"), redisFailures(context));
	}

	/** The decisions with {@code outcome} of every limit. */
	private static double decisions(ConfigurableApplicationContext context, String outcome) {
		return context.getBean(MeterRegistry.class)
			.find("ratelimit.decisions")
			.tag("outcome", outcome)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private static double redisFailures(ConfigurableApplicationContext context) {
		Counter counter = context.getBean(MeterRegistry.class).find("ratelimit.redis.failures").counter();
		return (counter != null) ? counter.count() : 0;
	}

	// --- HTTP

	private static String newClient() {
		return UUID.randomUUID().toString();
	}

	private Response get(ConfigurableApplicationContext context, String path, String client) throws Exception {
		return send(context, path, client).get();
	}

	/** A GET, its elapsed time measured when its response has arrived. */
	private CompletableFuture<Response> send(ConfigurableApplicationContext context, String path, String client) {
		String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
			.header("X-Client", client)
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		long start = System.nanoTime();
		return this.http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
			.thenApply((response) -> new Response(path, response.statusCode(), response.headers(), response.body(),
					Duration.ofNanos(System.nanoTime() - start)));
	}

	private static List<Response> concurrently(int count, RedisFailureContract.Request request) throws Exception {
		return RedisFailureContract.concurrently(count, request);
	}

	// --- The application: RedisFailureContract's (its fail-open /open, for contrast) and these endpoints

	@RestController
	static class FailLocalController {

		/** Also limited by the fail-local rule {@code rule-local}. */
		@GetMapping("/local/rule")
		String rule() {
			return "rule";
		}

		@RateLimited(name = "annotated-local", limit = LIMIT, window = "1h", key = CLIENT_KEY,
				failurePolicy = "fail-local")
		@GetMapping("/local/annotated")
		String annotated() {
			return "annotated";
		}

		/** A token bucket: its capacity (4, as its limit) is shared too. */
		@RateLimited(name = "bucket-local", algorithm = "token-bucket", limit = LIMIT, window = "1h",
				key = CLIENT_KEY, failurePolicy = "fail-local")
		@GetMapping("/local/bucket")
		String bucket() {
			return "bucket";
		}

		/** A fail-local and a fail-closed limit of one client key: one group, and fail-closed wins. */
		@RateLimited(name = "mixed-local", limit = LIMIT, window = "1h", key = CLIENT_KEY, failurePolicy = "fail-local")
		@RateLimited(name = "mixed-closed", limit = LIMIT, window = "1h", key = CLIENT_KEY,
				failurePolicy = "fail-closed")
		@GetMapping("/mixed")
		String mixed() {
			return "mixed";
		}

		/** A fail-local and a fail-open limit of one client key. */
		@RateLimited(name = "with-open-local", limit = LIMIT, window = "1h", key = CLIENT_KEY,
				failurePolicy = "fail-local")
		@RateLimited(name = "with-open-open", limit = LIMIT, window = "1h", key = CLIENT_KEY,
				failurePolicy = "fail-open")
		@GetMapping("/local-and-open")
		String localAndOpen() {
			return "local-and-open";
		}

	}

}
