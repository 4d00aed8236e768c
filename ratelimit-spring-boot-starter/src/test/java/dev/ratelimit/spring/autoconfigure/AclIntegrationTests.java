package dev.ratelimit.spring.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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

	/**
	 * The commands the scripts run: GET, SET, PEXPIRE, DEL, TIME, the sorted-set commands of the sliding log and the
	 * concurrency limit's leases, and the hash commands of the overrides.
	 */
	static final String SCRIPT_COMMANDS = "+get +set +pexpire +del +time +zadd +zcard +zcount +zrange +zrangebyscore "
			+ "+zremrangebyscore +zrem +zscore +hget +hgetall +hset +hsetnx +hdel +hincrby";

	/** The handshakes: Lettuce's HELLO with AUTH and SETNAME, Jedis' AUTH, CLIENT SETNAME and PING (Redis 7.2 adds CLIENT SETINFO, which Jedis sends and may be refused). */
	static final String HANDSHAKE = "+hello +auth +client|setname +ping";

	/** What waits for a lease need to be woken: the scripts publish releases, the waiters subscribe to them. */
	static final String RELEASES = "+publish +psubscribe &rl:*";

	private static final int LIMIT = 3;

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private TestRedis redis;

	@BeforeAll
	void startRedisWithUsers() {
		this.redis = TestRedis.start();
		user("limiter", "+evalsha +eval +script|load " + SCRIPT_COMMANDS + " " + HANDSHAKE);
		user("no-script-load", "+evalsha +eval " + SCRIPT_COMMANDS + " " + HANDSHAKE);
		user("no-evalsha", "+eval +script|load " + SCRIPT_COMMANDS + " " + HANDSHAKE);
		user("waits", "+evalsha +eval +script|load " + SCRIPT_COMMANDS + " " + HANDSHAKE + " " + RELEASES);
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

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void aUserWithTheChannelsWakesCallersWaitingForALease(String client) throws Exception {
		try (ConfigurableApplicationContext context = start(client, "waits")) {
			assertThat(waitForALease(context)).as("denials: the first, and once listening").isEqualTo(2);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void withoutTheChannelsLeasesAreGivenBackAndWaitersDecideAgainAfterTheHint(String client) throws Exception {
		try (ConfigurableApplicationContext context = start(client, "limiter")) {
			assertThat(waitForALease(context)).isGreaterThanOrEqualTo(2);
		}
	}

	/**
	 * One call holds the lease, another waits for it: admitted once the first gives it back. Returns the waiter's
	 * denials; no release or decision failed.
	 */
	private long waitForALease(ConfigurableApplicationContext context) throws Exception {
		AclExports exports = context.getBean(AclExports.class);
		String customer = UUID.randomUUID().toString();
		CompletableFuture<Void> gate = new CompletableFuture<>();
		CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> exports.export(customer, gate));
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		while (exports.running() == 0) {
			assertThat(holder).isNotDone();
			Thread.sleep(10);
		}
		CompletableFuture<String> waiter = CompletableFuture
			.supplyAsync(() -> exports.export(customer, CompletableFuture.completedFuture(null)));
		while (denials(registry) < 2) {
			if (waiter.isDone()) {
				assertThat(waiter.get()).as("the waiter, while the holder runs").isNull();
			}
			Thread.sleep(10);
		}
		gate.complete(null);
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("exported");
		assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("exported");
		assertThat(Search.in(registry).name("ratelimit.redis.failures").counters()).allSatisfy(
				(failures) -> assertThat(failures.count()).isZero());
		return denials(registry);
	}

	private static long denials(MeterRegistry registry) {
		return (long) Search.in(registry)
			.name("ratelimit.decisions")
			.tag("limit", "acl-exports")
			.tag("outcome", "denied")
			.counters()
			.stream()
			.mapToDouble(io.micrometer.core.instrument.Counter::count)
			.sum();
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
	@Import({ AclController.class, AclExports.class })
	static class AclApplication {

	}

	/** One export per customer at a time; a lease time of a minute; waiting up to a minute. */
	static class AclExports {

		private final AtomicInteger running = new AtomicInteger();

		/** Through the proxy: the calls that began. */
		int running() {
			return this.running.get();
		}

		@RateLimited(name = "acl-exports", algorithm = "concurrency", limit = 1, window = "60s", key = "#customer",
				maxWait = "60s")
		String export(String customer, CompletableFuture<Void> gate) {
			this.running.incrementAndGet();
			gate.join();
			return "exported";
		}

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
