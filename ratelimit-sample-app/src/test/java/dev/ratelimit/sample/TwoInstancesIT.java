package dev.ratelimit.sample;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the packaged application on different ports, sharing one Redis, with the traffic of every test
 * spread across both: the limits hold as if there were one instance.
 *
 * <p>
 * No test waits for a limit to pass. Decisions use the Redis server's clock, so the assertions are chosen not to
 * depend on elapsed time: per-hour budgets (a token refills every 6 minutes), one-minute sliding logs, and, for the
 * sliding window counter of the filter rule, a check of whether the test crossed a minute boundary. Every test uses
 * its own API key or username, so the tests share no budget.
 */
class TwoInstancesIT {

	private static TestRedis redis;

	private static SampleProcess a;

	private static SampleProcess b;

	@BeforeAll
	static void start() {
		redis = TestRedis.start();
		// Both start at once; each wait is bounded.
		a = SampleProcess.web("instance-a", redis.url());
		b = SampleProcess.web("instance-b", redis.url());
		a.awaitReady();
		b.awaitReady();
	}

	@AfterAll
	static void stop() {
		for (AutoCloseable closeable : new AutoCloseable[] { a, b, redis }) {
			if (closeable != null) {
				try {
					closeable.close();
				}
				catch (Exception ex) {
					// keep closing the others
				}
			}
		}
	}

	@Test
	void loginAttemptsOnBothInstancesAreLimitedPerUsernameAsOne() {
		String username = "user-" + UUID.randomUUID();
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			HttpResponse<String> response = Http.login(instance(i), username, "guess-" + i);
			statuses.add(response.statusCode());
			if (response.statusCode() == 429) {
				assertThat(Http.retryAfter(response)).isBetween(1L, 60L);
				assertThat(JsonPath.<List<String>>read(response.body(), "$['violated-policies']")).containsExactly("login");
			}
		}
		// The sliding log is exact: 5 attempts per minute, whichever instance each one reached.
		assertThat(statuses).containsExactly(401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429);
		// Per username: another account is not affected, even from the same address.
		assertThat(Http.login(a, "other-" + username, "guess").statusCode()).isEqualTo(401);
	}

	@Test
	void concurrentWrongPasswordsOnBothInstancesAreCheckedExactlyFiveTimes() {
		String username = "user-" + UUID.randomUUID();
		List<CompletableFuture<HttpResponse<String>>> attempts = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			attempts.add(Http.loginAsync(instance(i), username, "guess-" + i));
		}
		List<Integer> statuses = attempts.stream().map((attempt) -> attempt.join().statusCode()).sorted().toList();
		// each attempt reserved its unit on admission (reserve = true): never more than 5 reach the password check
		assertThat(statuses.stream().filter((status) -> status == 401).count()).isEqualTo(5);
		assertThat(statuses.stream().filter((status) -> status == 429).count()).isEqualTo(55);
	}

	@Test
	void aBudgetOfTokensIsChargedByWhatEachCompletionUsed() {
		String apiKey = "tokens-" + UUID.randomUUID();
		// 30 completions of 200 tokens: each reserved 500 and gave 300 back, or the 21st would have been refused
		for (int i = 0; i < 30; i++) {
			HttpResponse<String> completion = Http.post(instance(i), "/api/completions?words=180", apiKey);
			assertThat(completion.statusCode()).as("completion %d", i).isEqualTo(200);
			assertThat(JsonPath.<Integer>read(completion.body(), "$.usage.completionTokens")).isEqualTo(180);
		}
		// 6,000 of 10,000 used: a long one is admitted on its provisional 500, completes, and leaves a debt
		assertThat(Http.post(a, "/api/completions?words=5000", apiKey).statusCode()).isEqualTo(200);
		HttpResponse<String> refused = Http.post(b, "/api/completions?words=1", apiKey);
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(JsonPath.<List<String>>read(refused.body(), "$['violated-policies']")).containsExactly("llm-tokens");
	}

	@Test
	void onlyFailedLoginsAreCharged() {
		// alice is the demo's one account (password wonderland); no other test logs in as her
		for (int i = 0; i < 10; i++) {
			assertThat(Http.login(instance(i), "alice", "wonderland").statusCode()).isEqualTo(200);
		}
		List<Long> remaining = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> failed = Http.login(instance(i), "alice", "guess-" + i);
			assertThat(failed.statusCode()).isEqualTo(401);
			remaining.add(Http.states(failed).get("login").remaining());
		}
		// the fields after each charge, whichever instance answered
		assertThat(remaining).containsExactly(4L, 3L, 2L, 1L, 0L);
		assertThat(Http.login(b, "alice", "wonderland").statusCode()).isEqualTo(429);
	}

	@Test
	void partnerCallsOfBothInstancesTogetherArriveAtTheFleetsRate() throws Exception {
		long start = System.nanoTime();
		CompletableFuture<HttpResponse<String>> burstA = Http.postAsync(a, "/demo/partner/burst?calls=20");
		CompletableFuture<HttpResponse<String>> burstB = Http.postAsync(b, "/demo/partner/burst?calls=20");
		List<HttpResponse<String>> bursts = List.of(burstA.get(), burstB.get());
		long elapsedMs = (System.nanoTime() - start) / 1_000_000;
		int arrived = 0;
		for (HttpResponse<String> burst : bursts) {
			assertThat(burst.statusCode()).isEqualTo(200);
			assertThat(JsonPath.<Integer>read(burst.body(), "$.refused")).as(burst.body()).isZero();
			arrived += JsonPath.<Integer>read(burst.body(), "$.arrived");
		}
		assertThat(arrived).isEqualTo(40);
		// 'partner' is a token bucket of 5, refilled with 5 a second, for the whole fleet: the 40th call cannot have
		// been let through before (40 - 5) / 5 = 7 s after the first
		assertThat(elapsedMs).isGreaterThanOrEqualTo(7_000);
	}

	@Test
	void apiKeyRuleAdmitsItsLimitOnceAcrossBothInstances() {
		String apiKey = "key-" + UUID.randomUUID();
		long minuteBefore = currentMinute();
		int admitted = 0;
		HttpResponse<String> denied = null;
		for (int i = 0; i < 110; i++) {
			HttpResponse<String> response = Http.get(instance(i), "/api/ping", apiKey);
			if (response.statusCode() == 200) {
				admitted++;
			}
			else {
				assertThat(response.statusCode()).isEqualTo(429);
				denied = response;
			}
		}
		if (currentMinute() == minuteBefore) {
			assertThat(admitted).isEqualTo(100);
		}
		else {
			// Across a minute boundary the sliding window counter's estimate may admit slightly more (spec).
			assertThat(admitted).isBetween(100, 102);
		}
		assertThat(denied).isNotNull();
		assertThat(JsonPath.<List<String>>read(denied.body(), "$['violated-policies']")).containsExactly("api");
		assertThat(Http.policies(denied)).containsEntry("api", new Http.Policy(100, 60));
		assertThat(Http.retryAfter(denied)).isBetween(1L, 120L);
	}

	@Test
	void requestsWithoutApiKeyAreCountedPerClientAddress() {
		long minuteBefore = currentMinute();
		long first = Http.states(Http.get(a, "/api/ping", null)).get("api").remaining();
		long second = Http.states(Http.get(b, "/api/ping", null)).get("api").remaining();
		long withKey = Http.states(Http.get(a, "/api/ping", "key-" + UUID.randomUUID())).get("api").remaining();
		if (currentMinute() == minuteBefore) {
			// Both calls came from 127.0.0.1: one budget across the instances.
			assertThat(second).isEqualTo(first - 1);
		}
		assertThat(withKey).isEqualTo(99);
	}

	@Test
	void twoReportsSpendTheBudgetAndTheThirdIsDenied() {
		String apiKey = "key-" + UUID.randomUUID();
		HttpResponse<String> first = Http.get(a, "/api/reports/weekly", apiKey);
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(Http.states(first).get("api-budget").remaining()).isEqualTo(5);
		assertThat(Http.get(b, "/api/reports/weekly", apiKey).statusCode()).isEqualTo(200);

		HttpResponse<String> third = Http.get(a, "/api/reports/weekly", apiKey);

		assertThat(third.statusCode()).isEqualTo(429);
		// 5 tokens at 10 per hour: 30 minutes, less the refill since the second report.
		long retryAfter = Http.retryAfter(third);
		assertThat(retryAfter).isBetween(1700L, 1800L);
		assertThat(Http.policies(third)).containsEntry("api-budget", new Http.Policy(10, 3600))
			.containsEntry("api", new Http.Policy(100, 60));
		assertThat(Http.states(third).get("api-budget")).isEqualTo(new Http.State(0, retryAfter));
		assertThat(third.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		String body = third.body();
		assertThat(JsonPath.<String>read(body, "$.type"))
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
		assertThat(JsonPath.<String>read(body, "$.title")).isEqualTo("Too Many Requests");
		assertThat(JsonPath.<Integer>read(body, "$.status")).isEqualTo(429);
		assertThat(JsonPath.<String>read(body, "$.detail")).contains("'api-budget'", "retry in " + retryAfter + " s");
		assertThat(JsonPath.<String>read(body, "$.instance")).isEqualTo("/api/reports/weekly");
		assertThat(JsonPath.<List<String>>read(body, "$['violated-policies']")).containsExactly("api-budget");
	}

	@Test
	void exportsOfOneKeyRunTwoAtATimeOnBothInstancesTogether() throws Exception {
		String apiKey = "key-" + UUID.randomUUID();
		CompletableFuture<HttpResponse<String>> first = Http.getAsync(a, "/api/exports/first?seconds=3", apiKey);
		CompletableFuture<HttpResponse<String>> second = Http.getAsync(b, "/api/exports/second?seconds=3", apiKey);
		// both running (the endpoint reads the leases without taking one): a third, on either instance, is refused
		awaitExportsFree(a, apiKey, 0);
		HttpResponse<String> third = Http.get(a, "/api/exports/third", apiKey);
		assertThat(third.statusCode()).isEqualTo(429);
		assertThat(third.headers().allValues("Retry-After")).containsExactly("1");
		assertThat(third.headers().firstValue("RateLimit-Policy").orElseThrow())
			.contains("\"exports\";q=2;qu=\"concurrent-requests\"");
		assertThat(third.headers().firstValue("RateLimit").orElseThrow()).contains("\"exports\";r=0");
		assertThat(JsonPath.<String>read(third.body(), "$.detail"))
			.isEqualTo("Concurrency limit 'exports' exceeded: at most 2 requests of this client in flight at once; retry when one ends");
		assertThat(Http.get(b, "/api/exports/third", apiKey).statusCode()).isEqualTo(429);
		// another key has exports of its own
		assertThat(Http.get(b, "/api/exports/other?seconds=1", "key-" + UUID.randomUUID()).statusCode()).isEqualTo(200);

		assertThat(first.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		assertThat(first.get().body()).startsWith("first,1\n").endsWith("first,30\n");
		assertThat(second.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		awaitExportsFree(b, apiKey, 2);
		assertThat(Http.get(b, "/api/exports/third?seconds=1", apiKey).statusCode()).isEqualTo(200);
	}

	/**
	 * An instance killed mid-export (SIGKILL: nothing gives its lease back) holds its lease no longer than its lease
	 * time (3 s here) after its last renewal; the time is the behaviour, with a margin for a busy machine.
	 */
	@Test
	void aKilledInstancesExportLeaseExpiresAfterItsLeaseTime() throws Exception {
		String apiKey = "key-" + UUID.randomUUID();
		try (SampleProcess doomed = SampleProcess.webWith("instance-killed", "--spring.data.redis.url=" + redis.url(),
				"--ratelimit.redis.timeout=10s", "--sample.exports.lease-time=3s")) {
			doomed.awaitReady();
			Http.getAsync(doomed, "/api/exports/doomed?seconds=600", apiKey);
			awaitExportsFree(a, apiKey, 1);
			doomed.kill();
		}
		long killedAt = System.nanoTime();
		// an export of 30 s takes the other lease, and holds it past the end of this test
		Http.getAsync(a, "/api/exports/running?seconds=30", apiKey);
		awaitExportsFree(a, apiKey, 0);
		// the dead instance's lease is swept once it expires, one lease time at most after its last renewal: long
		// before the running export ends
		awaitExportsFree(b, apiKey, 1);
		assertThat(System.nanoTime() - killedAt).as("time to expire the killed instance's lease")
			.isLessThan(TimeUnit.SECONDS.toNanos(3 + 12));
	}

	/** Waits, at most 30 s, until the endpoint of {@code instance} reads {@code free} exports left for the key. */
	private static void awaitExportsFree(SampleProcess instance, String apiKey, int free) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		String path = "/actuator/ratelimits/exports?client=key:" + apiKey;
		while (true) {
			HttpResponse<String> state = Http.get(instance, path, null);
			List<Integer> remaining = JsonPath.read(state.body(), "$.states[*].remaining");
			if (remaining.equals(List.of(free))) {
				return;
			}
			assertThat(System.nanoTime()).as("waiting for %d exports free, reading %s", free, state.body())
				.isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	@Test
	void anOperatorReadsALockedOutKeyOnOneInstanceAndResetsItThroughTheOther() {
		String apiKey = "key-" + UUID.randomUUID();
		assertThat(Http.get(a, "/api/reports/weekly", apiKey).statusCode()).isEqualTo(200);
		assertThat(Http.get(a, "/api/reports/weekly", apiKey).statusCode()).isEqualTo(200);
		// denied on b, which remembers the denial; the reset through b forgets it at once (another instance would
		// within ratelimit.denials.max-age)
		assertThat(Http.get(b, "/api/reports/weekly", apiKey).statusCode()).isEqualTo(429);
		String path = "/actuator/ratelimits/api-budget?client=key:" + apiKey;

		HttpResponse<String> state = Http.get(a, path, null);
		assertThat(state.statusCode()).isEqualTo(200);
		assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[?(@.plan == 'free')].remaining")).containsExactly(0);
		// a read (cost 1) and a report (cost 5) would both be denied
		assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[?(@.plan == 'free')].requests[*].cost"))
			.containsExactly(1, 5);
		assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[?(@.plan == 'free')].requests[*].allowed"))
			.containsExactly(false, false);
		HttpResponse<String> reset = Http.delete(b, path);
		assertThat(reset.statusCode()).isEqualTo(200);
		assertThat(JsonPath.<Integer>read(reset.body(), "$.deleted")).isEqualTo(1);

		assertThat(Http.get(b, "/api/reports/weekly", apiKey).statusCode()).isEqualTo(200);
		assertThat(Http.get(a, "/api/reports/weekly", apiKey).statusCode()).isEqualTo(200);
		assertThat(Http.get(a, "/api/reports/weekly", apiKey).statusCode()).isEqualTo(429);
		assertThat(JsonPath.<List<String>>read(Http.get(a, "/actuator/ratelimits", null).body(), "$.limits[*].name"))
			.contains("api", "api-budget", "login", "search-per-second", "search-per-hour");
	}

	@Test
	void onlyFailedHttpBasicLoginsAreCountedOnBothInstances() {
		// the only test on /admin/**, whose rule counts per IP address (127.0.0.1 for both instances)
		for (int i = 1; i <= 10; i++) {
			assertThat(Http.basic(instance(i), "/admin/status", "admin", "admin-secret").statusCode())
				.as("correct login %d", i)
				.isEqualTo(200);
		}
		for (int i = 1; i <= 5; i++) {
			assertThat(Http.basic(instance(i), "/admin/status", "admin", "guess-" + i).statusCode())
				.as("wrong password %d", i)
				.isEqualTo(401);
		}
		HttpResponse<String> sixth = Http.basic(a, "/admin/status", "admin", "guess-6");
		assertThat(sixth.statusCode()).isEqualTo(429);
		assertThat(sixth.headers().firstValue("Retry-After")).isPresent();
		// the limit holds every attempt now, the right password included, until a failure leaves the window
		assertThat(Http.basic(b, "/admin/status", "admin", "admin-secret").statusCode()).isEqualTo(429);
	}

	@Test
	void anOperatorRaisesTheFreePlansBudgetOnOneInstanceAndTheOtherFollows() {
		String freeKey = "key-" + UUID.randomUUID();
		try {
			HttpResponse<String> raised = Http.postJson(a, "/actuator/ratelimits/api-budget",
					"{\"plan\": \"free\", \"limit\": 20}");
			assertThat(raised.statusCode()).as(raised.body()).isEqualTo(200);
			awaitFreeBudget(b, 20);
			// four reports of cost 5 on b, where nothing was changed by hand
			for (int i = 1; i <= 4; i++) {
				HttpResponse<String> report = Http.get(b, "/api/reports/weekly", freeKey);
				assertThat(report.statusCode()).as("report %d", i).isEqualTo(200);
				assertThat(Http.policies(report)).containsEntry("api-budget", new Http.Policy(20, 3600));
			}
			assertThat(Http.get(a, "/api/reports/weekly", freeKey).statusCode()).isEqualTo(429);
		}
		finally {
			assertThat(Http.postJson(b, "/actuator/ratelimits/api-budget", "{\"plan\": \"free\", \"undo\": true}")
				.statusCode()).isEqualTo(200);
			// both back to application.yml's 10 before the next test
			awaitFreeBudget(a, 10);
			awaitFreeBudget(b, 10);
		}
	}

	/** Waits for {@code instance} to read the overrides (every 2 s): at most 30 s, for a loaded machine. */
	private static void awaitFreeBudget(SampleProcess instance, int limit) {
		long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
		List<Integer> limits = List.of();
		while (System.nanoTime() < deadline) {
			limits = JsonPath.read(Http.get(instance, "/actuator/ratelimits", null).body(),
					"$.limits[?(@.name == 'api-budget' && @.plan == 'free')].limit");
			if (limits.stream().allMatch((free) -> free == limit)) {
				return;
			}
			java.util.concurrent.locks.LockSupport.parkNanos(java.time.Duration.ofMillis(100).toNanos());
		}
		assertThat(limits).as("the free plan's api-budget").containsOnly(limit);
	}

	@Test
	void aProKeyHasTenTimesTheBudgetOfAFreeKeyOnBothInstances() {
		String proKey = "pro-" + UUID.randomUUID();
		for (int i = 1; i <= 20; i++) {
			HttpResponse<String> report = Http.get(instance(i), "/api/reports/weekly", proKey);
			assertThat(report.statusCode()).as("report %d of a pro key", i).isEqualTo(200);
			assertThat(Http.policies(report)).containsEntry("api-budget", new Http.Policy(100, 3600));
		}
		HttpResponse<String> denied = Http.get(a, "/api/reports/weekly", proKey);
		assertThat(denied.statusCode()).isEqualTo(429);
		// A free key (any key without the pro- prefix) still has the free plan's 10.
		assertThat(Http.policies(Http.get(b, "/api/reports/weekly", "key-" + UUID.randomUUID())))
			.containsEntry("api-budget", new Http.Policy(10, 3600));
	}

	@Test
	void readsAndReportsDrawOnOneBudget() {
		String apiKey = "key-" + UUID.randomUUID();
		assertThat(budgetLeft(Http.get(a, "/api/catalog/1", apiKey))).isEqualTo(9);
		assertThat(budgetLeft(Http.get(b, "/api/reports/daily", apiKey))).isEqualTo(4);
		for (long left = 3; left >= 0; left--) {
			assertThat(budgetLeft(Http.get(instance((int) left), "/api/catalog/2", apiKey))).isEqualTo(left);
		}
		HttpResponse<String> read = Http.get(a, "/api/catalog/1", apiKey);
		HttpResponse<String> report = Http.get(b, "/api/reports/daily", apiKey);
		assertThat(read.statusCode()).isEqualTo(429);
		assertThat(report.statusCode()).isEqualTo(429);
		// One token comes back every 6 minutes: a read waits for one, a report for five.
		assertThat(Http.retryAfter(read)).isBetween(300L, 360L);
		assertThat(Http.retryAfter(report)).isBetween(1700L, 1800L);
	}

	@Test
	void perSecondAndPerHourLimitsAreDecidedTogether() {
		String apiKey = "key-" + UUID.randomUUID();
		// All at once, so that the per-second limit denies some.
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			calls.add(Http.getAsync(instance(i), "/api/search?q=redis", apiKey));
		}
		List<HttpResponse<String>> responses = calls.stream().map(CompletableFuture::join).toList();

		List<HttpResponse<String>> admitted = responses.stream().filter((r) -> r.statusCode() == 200).toList();
		// The bucket starts full with 5; the hourly quota of 20 caps the rest whatever the timing.
		assertThat(admitted.size()).isBetween(5, 20);
		// Every admitted call took exactly one unit of the hourly quota, and no denied call took any: the
		// remaining counts are 19, 18, ... down to 20 - admitted, each once.
		Set<Long> hourlyLeft = admitted.stream()
			.map((r) -> Http.states(r).get("search-per-hour").remaining())
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(hourlyLeft).containsExactlyElementsOf(
				LongStream.range(20 - admitted.size(), 20).boxed().collect(Collectors.toCollection(TreeSet::new)));
		for (HttpResponse<String> response : responses) {
			assertThat(Http.policies(response)).containsEntry("search-per-second", new Http.Policy(5, 1))
				.containsEntry("search-per-hour", new Http.Policy(20, 3600));
			if (response.statusCode() != 200) {
				assertThat(response.statusCode()).isEqualTo(429);
				assertThat(Http.retryAfter(response)).isEqualTo(1);
				if (admitted.size() < 20) {
					assertThat(JsonPath.<List<String>>read(response.body(), "$['violated-policies']"))
						.containsExactly("search-per-second");
				}
			}
		}
	}

	/** Requests alternate between the two instances. */
	private static SampleProcess instance(int i) {
		return (i % 2 == 0) ? a : b;
	}

	private static long budgetLeft(HttpResponse<String> response) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return Http.states(response).get("api-budget").remaining();
	}

	/**
	 * The minute on this machine's clock, the clock of the Redis server the tests start, for the sliding window
	 * counter, whose counts legitimately differ when a burst straddles a window boundary.
	 */
	private static long currentMinute() {
		return System.currentTimeMillis() / 60_000;
	}

}
