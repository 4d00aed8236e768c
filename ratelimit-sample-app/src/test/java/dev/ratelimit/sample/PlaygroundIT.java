package dev.ratelimit.sample;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The playground's answers over HTTP, on the packaged application and a real Redis: the two reference experiments
 * give the spec's numbers (those of {@code --compare}), the run leaves no key behind, and bad inputs are 400s naming
 * them. The page itself is {@link PlaygroundBrowserIT}'s.
 */
class PlaygroundIT {

	private static TestRedis redis;

	private static SampleProcess app;

	@BeforeAll
	static void start() {
		redis = TestRedis.start();
		app = SampleProcess.web("playground", redis.url());
		app.awaitReady();
	}

	@AfterAll
	static void stop() throws Exception {
		if (app != null) {
			app.close();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void theBoundaryBurstAdmitsTheSpecsTotals() {
		HttpResponse<String> response = Http.get(app, "/playground/run?pattern=boundary-burst", null);
		assertThat(response.statusCode()).isEqualTo(200);
		// docs/ALGORITHMS.md, "Reference results": 20 / 10 / 11 / 10
		assertThat(admitted(response.body())).containsExactlyInAnyOrderEntriesOf(
				Map.of("fixed-window", 20, "sliding-log", 10, "sliding-window-counter", 11, "token-bucket", 10));
		assertThat(JsonPath.<Integer>read(response.body(), "$.requests")).isEqualTo(30);
		List<Integer> retryAfter = JsonPath.read(response.body(),
				"$.algorithms[?(@.algorithm == 'sliding-log')].requests[?(@.allowed == false)].retryAfterSeconds");
		assertThat(retryAfter).hasSize(20).allSatisfy((seconds) -> assertThat(seconds).isEqualTo(1));
		// the number of keys of the run's client (":0", in Redis' protocol)
		assertThat(redis.command("EVAL", "return #redis.call('KEYS', ARGV[1])", "0", "*playground*"))
			.as("no key left behind")
			.isEqualTo(":0");
	}

	@Test
	void theSteadyOverloadAdmitsTheSpecsTotalsAndPeaks() {
		HttpResponse<String> response = Http.get(app, "/playground/run?pattern=steady-overload", null);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(admitted(response.body())).containsExactlyInAnyOrderEntriesOf(
				Map.of("fixed-window", 100, "sliding-log", 93, "sliding-window-counter", 99, "token-bucket", 108));
		List<String> algorithms = JsonPath.read(response.body(), "$.algorithms[*].algorithm");
		List<Integer> most = JsonPath.read(response.body(), "$.algorithms[*].mostInAnyWindow");
		Map<String, Integer> peaks = new java.util.HashMap<>();
		for (int i = 0; i < algorithms.size(); i++) {
			peaks.put(algorithms.get(i), most.get(i));
		}
		assertThat(peaks).containsExactlyInAnyOrderEntriesOf(
				Map.of("fixed-window", 17, "sliding-log", 10, "sliding-window-counter", 12, "token-bucket", 19));
	}

	@ParameterizedTest
	@CsvSource({ "3s", "1m", "1d" })
	void theBoundaryBurstMeetsTheFixedWindowsEdgeForAnyWindow(String window) {
		// fixed windows start at multiples of the window since the epoch, and T0 is a multiple of 1 s only
		long started = System.nanoTime();
		HttpResponse<String> response = Http.get(app, "/playground/run?pattern=boundary-burst&window=" + window, null);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(admitted(response.body())).containsEntry("fixed-window", 20).containsEntry("sliding-log", 10);
		// the work grows with the requests, not with the window
		assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(10_000);
	}

	@Test
	void aWindowOfOneMsIsSampledEveryMs() {
		HttpResponse<String> response = Http.get(app, "/playground/run?pattern=boundary-burst&window=1ms", null);
		assertThat(response.statusCode()).isEqualTo(200);
		List<Integer> offsets = JsonPath.read(response.body(), "$.algorithms[0].requests[*].atMs");
		assertThat(offsets).allSatisfy((at) -> assertThat(at).isNotNegative());
		List<Integer> most = JsonPath.read(response.body(), "$.algorithms[*].mostInAnyWindow");
		assertThat(most).containsOnly(10);
	}

	@Test
	void theMostInAnyWindowCountsUnits() {
		HttpResponse<String> response = Http.get(app, "/playground/run?pattern=boundary-burst&cost=5", null);
		assertThat(response.statusCode()).isEqualTo(200);
		// 2 requests of cost 5 on each side of the edge: the fixed window's 4 requests are 20 units
		assertThat(JsonPath.<List<Integer>>read(response.body(),
				"$.algorithms[?(@.algorithm == 'fixed-window')].mostInAnyWindow")).containsExactly(20);
	}

	@Test
	void aCustomRateIsRunForEveryAlgorithm() {
		HttpResponse<String> response = Http.get(app,
				"/playground/run?pattern=rate&perSecond=20&seconds=3&limit=10&window=1s&capacity=5", null);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(JsonPath.<Integer>read(response.body(), "$.requests")).isEqualTo(60);
		// 10 per second over 3 s, from a full allowance: about 30 of the 60, for every algorithm
		assertThat(admitted(response.body()).values()).allSatisfy((n) -> assertThat(n).isBetween(25, 36));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "limit=0|limit of rate limit", "window=5|window '5' has no unit",
			"window=soon|window 'soon' is not a duration", "cost=11|cost 11 of rate limit",
			"pattern=flood|pattern must be", "pattern=burst&count=0|count must be between",
			"pattern=rate&perSecond=1000&seconds=60|at most 2000 requests", "capacity=-1|capacity of rate limit",
			"limit=abc|limit 'abc' is not a whole number", "perSecond=x&pattern=rate|perSecond 'x' is not a number",
			"limit=|limit is empty", "limit=10&limit=20|limit is given 2 times", "window=2d|window must be at most 1d",
			"pattern=rate&perSecond=0.01&seconds=5|at least 1 request" })
	void aBadInputIsA400NamingIt(String query, String message) {
		HttpResponse<String> response = Http.get(app, "/playground/run?" + query, null);
		assertThat(response.statusCode()).as(query).isEqualTo(400);
		assertThat(JsonPath.<String>read(response.body(), "$.detail")).as(query).contains(message);
	}

	@Test
	void theHomePageLinksThePlayground() {
		assertThat(Http.get(app, "/", null).body()).contains("/playground");
		HttpResponse<String> page = Http.get(app, "/playground", null);
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("<title>Rate limit playground").doesNotContain("https://");
	}

	private static Map<String, Integer> admitted(String body) {
		List<String> algorithms = JsonPath.read(body, "$.algorithms[*].algorithm");
		List<Integer> admitted = JsonPath.read(body, "$.algorithms[*].admitted");
		Map<String, Integer> byAlgorithm = new java.util.HashMap<>();
		for (int i = 0; i < algorithms.size(); i++) {
			byAlgorithm.put(algorithms.get(i), admitted.get(i));
		}
		return byAlgorithm;
	}

}
