package dev.ratelimit.sample;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged application with {@code --ratelimit.store=in-memory}, the way to run the sample without Redis: the
 * web application and {@code --compare}, started at the same time. Spring Boot's Redis settings point at a port nothing
 * listens on, so that any use of Redis fails visibly (a connection error naming that port, a failed comparison)
 * and never reaches a Redis of this machine; {@code sample.redis.embedded} keeps its default.
 *
 * <p>
 * That port counts as configured Redis, so the embedded server would not start here even with the Redis store:
 * that no server starts for the in-memory store when no Redis is configured at all is {@link
 * EmbeddedRedisListenerTest}'s part. Here the application must say where it counts and start no process.
 */
class InMemoryStoreIT {

	private static final String IN_MEMORY_LINE = "ratelimit.store=in-memory: the limits are counted in this"
			+ " instance's memory only";

	private static int closedPort;

	private static SampleProcess web;

	private static SampleProcess compare;

	@BeforeAll
	static void start() {
		closedPort = SampleProcess.freePort();
		String redisPort = "--spring.data.redis.port=" + closedPort;
		web = SampleProcess.webWith("in-memory-web", "--ratelimit.store=in-memory", redisPort);
		compare = SampleProcess.launch("in-memory-compare", Map.of(), "--compare", "--ratelimit.store=in-memory",
				redisPort);
		web.awaitReady();
	}

	@AfterAll
	static void stop() {
		for (SampleProcess process : new SampleProcess[] { web, compare }) {
			if (process != null) {
				process.close();
			}
		}
	}

	@Test
	void startsNoRedisServerAndSaysWhereTheLimitsAreCounted() {
		assertThat(web.runningDescendants()).as("processes started by the application").isEmpty();
		String log = web.output();
		assertThat(log).contains(IN_MEMORY_LINE).doesNotContain("embedded redis-server");
		assertNoRedisUsed(log);
	}

	@Test
	void limitedEndpointAdmitsItsBudgetThenAnswers429WithRetryAfter() {
		String apiKey = "key-" + UUID.randomUUID();
		for (long left = 9; left >= 0; left--) {
			HttpResponse<String> read = Http.get(web, "/api/catalog/1", apiKey);
			assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
			assertThat(Http.states(read).get("api-budget").remaining()).isEqualTo(left);
		}

		HttpResponse<String> denied = Http.get(web, "/api/catalog/1", apiKey);

		assertThat(denied.statusCode()).as(denied.body()).isEqualTo(429);
		// One token of 10 per hour comes back every 6 minutes.
		assertThat(Http.retryAfter(denied)).isBetween(300L, 360L);
		assertThat(Http.policies(denied)).containsEntry("api-budget", new Http.Policy(10, 3600))
			.containsEntry("api", new Http.Policy(100, 60));
		assertThat(JsonPath.<List<String>>read(denied.body(), "$['violated-policies']")).containsExactly("api-budget");
		// Counted per client: another key has its whole budget.
		HttpResponse<String> other = Http.get(web, "/api/catalog/1", "other-" + apiKey);
		assertThat(other.statusCode()).isEqualTo(200);
		assertThat(Http.states(other).get("api-budget").remaining()).isEqualTo(9);
		assertNoRedisUsed(web.output());
	}

	@Test
	void compareRunsOnTheInMemoryLimiterAndPrintsTheReferenceNumbers() {
		assertThat(compare.awaitExit()).as(compare.output()).isZero();
		String output = compare.output();
		ComparisonCommandIT.assertReferenceTables(output);
		assertThat(output).contains("In-memory store (ratelimit.store=in-memory)")
			.contains("Memory per client after the steady run: n/a (in-memory store)")
			.doesNotContain("| algorithm | keys | bytes |")
			.doesNotContain("embedded");
		assertNoRedisUsed(output);
	}

	/**
	 * Whatever tried Redis would have failed on the closed port, and Lettuce and the starter name what they could not
	 * reach.
	 */
	private static void assertNoRedisUsed(String log) {
		assertThat(log).doesNotContain(":" + closedPort)
			.doesNotContainIgnoringCase("connection refused")
			.doesNotContain("could not connect to Redis")
			.doesNotContain("Unable to connect");
	}

}
