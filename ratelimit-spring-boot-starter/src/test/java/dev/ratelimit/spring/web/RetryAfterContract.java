package dev.ratelimit.spring.web;

import java.io.IOException;
import java.net.http.HttpResponse;

import dev.ratelimit.spring.test.app.ClockedLimiterConfiguration;
import dev.ratelimit.spring.test.app.TestClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import static dev.ratelimit.spring.test.app.ClockedLimiterConfiguration.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Retry-After} keeps its promise: a client that waits that long is admitted, and the value is no larger than
 * needed. Time is the {@link TestClock}'s, moved by the tests, and decided by the application's own limiter
 * ({@link ClockedLimiterConfiguration}); each test case is a client of its own ({@code X-Client}). Written once and run
 * on Spring MVC ({@code MvcRetryAfterIntegrationTests}) and WebFlux ({@code WebFluxRetryAfterIntegrationTests}), whose
 * subclasses add {@link ClockedLimiterConfiguration} to their application. The clock is the application's
 * {@code rateLimitClock}, so the denials the application remembers count time on it too, and a remembered denial ends
 * when the limiter's would.
 */
@TestPropertySource(properties = "spring.autoconfigure.exclude="
		+ "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
public abstract class RetryAfterContract extends ServerTestSupport {

	@Autowired
	private TestClock clock;

	/**
	 * {@code limit} requests at {@code firstAt} use the budget up; the next, at {@code deniedAt}, must wait
	 * {@code retryMs} exactly (the algorithm's contract, docs/ALGORITHMS.md), which Retry-After rounds up to whole
	 * seconds.
	 */
	@ParameterizedTest(name = "{0}: {1} requests at +{2} ms, denied at +{3} ms for {4} ms")
	@CsvSource({
			// the next window starts 7.5 s later
			"fixed-window, 4, 2500, 2500, 7500",
			// the next window starts exactly 10 s later
			"fixed-window, 4, 0, 0, 10000",
			// the oldest entry leaves the log exactly one window after it was written
			"sliding-log, 4, 0, 0, 10000",
			"sliding-log, 4, 0, 2500, 7500",
			// at +10 s the previous window still weighs 4 x 1; one ms later its weight drops below 1
			"sliding-window-counter, 4, 0, 0, 10001",
			// one token every 2.5 s
			"token-bucket, 4, 0, 0, 2500",
			// one token every 2 s
			"token-bucket-whole, 5, 0, 0, 2000",
			// one token every 100 ms: Retry-After is 1, never 0
			"token-bucket-fast, 10, 0, 0, 100" })
	void waitingRetryAfterSecondsIsEnoughAndNoLongerThanNeeded(String algorithm, int limit, long firstAt,
			long deniedAt, long retryMs) throws Exception {
		String path = "/clocked/" + algorithm;
		String client = algorithm + "-" + firstAt + "-" + deniedAt;
		for (int i = 0; i < limit; i++) {
			assertThat(call(path, client, T0 + firstAt).statusCode()).isEqualTo(200);
		}
		HttpResponse<String> denied = call(path, client, T0 + deniedAt);
		assertThat(denied.statusCode()).isEqualTo(429);
		long retryAfter = (retryMs + 999) / 1000;
		assertThat(denied.headers().allValues("Retry-After")).containsExactly(Long.toString(retryAfter));
		assertThat(denied.headers().allValues("RateLimit")).singleElement()
			.asString()
			.endsWith(";r=0;t=" + retryAfter);
		assertThat(denied.body()).contains("exceeded: retry in " + retryAfter + " s\"");

		assertThat(call(path, client, T0 + deniedAt + retryMs - 1).statusCode())
			.as("one ms before the algorithm's retry time").isEqualTo(429);
		if (retryAfter > 1) {
			assertThat(call(path, client, T0 + deniedAt + (retryAfter - 1) * 1000).statusCode())
				.as("one second less than Retry-After").isEqualTo(429);
		}
		assertThat(call(path, client, T0 + deniedAt + retryAfter * 1000).statusCode())
			.as("after Retry-After seconds").isEqualTo(200);
	}

	@Test
	void repeatedLimitsAreAllOrNothing() throws Exception {
		String client = "tiered";
		// 3,300 s into the hour: 300 s left of the per-hour window.
		long start = T0 + 100_000;
		HttpResponse<String> first = call("/clocked/tiered", client, start);
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().allValues("RateLimit-Policy"))
			.containsExactly("\"per-second\";q=2;w=1, \"per-hour\";q=3;w=3600");
		assertThat(first.headers().allValues("RateLimit"))
			.containsExactly("\"per-second\";r=1;t=1, \"per-hour\";r=2;t=300");
		assertThat(call("/clocked/tiered", client, start).headers().allValues("RateLimit"))
			.containsExactly("\"per-second\";r=0;t=1, \"per-hour\";r=1;t=300");

		HttpResponse<String> secondDenies = call("/clocked/tiered", client, start + 500);
		assertThat(secondDenies.statusCode()).isEqualTo(429);
		assertThat(secondDenies.headers().allValues("Retry-After")).containsExactly("1");
		// The per-hour limit admitted it but took nothing: still 1 left.
		assertThat(secondDenies.headers().allValues("RateLimit"))
			.containsExactly("\"per-second\";r=0;t=1, \"per-hour\";r=1;t=300");
		assertThat(secondDenies.body()).contains("\"violated-policies\":[\"per-second\"]");

		HttpResponse<String> next = call("/clocked/tiered", client, start + 1_000);
		assertThat(next.statusCode()).isEqualTo(200);
		assertThat(next.headers().allValues("RateLimit"))
			.containsExactly("\"per-second\";r=1;t=1, \"per-hour\";r=0;t=299");

		HttpResponse<String> hourDenies = call("/clocked/tiered", client, start + 1_000);
		assertThat(hourDenies.statusCode()).isEqualTo(429);
		assertThat(hourDenies.headers().allValues("Retry-After")).containsExactly("299");
		// The per-second limit admitted it but took nothing: still 1 left.
		assertThat(hourDenies.headers().allValues("RateLimit"))
			.containsExactly("\"per-second\";r=1;t=1, \"per-hour\";r=0;t=299");
		assertThat(hourDenies.body()).contains("\"violated-policies\":[\"per-hour\"]")
			.contains("\"detail\":\"Rate limit 'per-hour' exceeded: retry in 299 s\"");
	}

	private HttpResponse<String> call(String path, String client, long atMs) throws IOException, InterruptedException {
		this.clock.set(atMs);
		return get(path, "X-Client", client);
	}

}
