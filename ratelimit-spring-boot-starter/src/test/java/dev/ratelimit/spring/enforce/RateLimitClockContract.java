package dev.ratelimit.spring.enforce;

import java.io.IOException;
import java.net.http.HttpResponse;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.spring.RateLimitReset;
import dev.ratelimit.spring.test.app.ClockedLimiterConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.test.app.TestClock;
import dev.ratelimit.spring.web.ServerTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's {@code rateLimitClock} bean: time under a test's control for every part of the starter, on a real
 * Spring MVC server. The starter's own limiter decides at the clock's time, the denials it remembers and the
 * endpoint's views age on it, and {@link RateLimitReset} starts every test afresh. Written once and run in memory
 * ({@code InMemoryRateLimitClockIntegrationTests}) and on the shared test Redis
 * ({@code RedisRateLimitClockIntegrationTests}). The limit is {@code ClockedController}'s {@code fw}: a fixed window of
 * 4 per 10 s per {@code X-Client}.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, RateLimitClockContract.LimitsClock.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.web.exposure.include=ratelimits")
abstract class RateLimitClockContract extends ServerTestSupport {

	/** A multiple of 10 s: a fixed window starts there. */
	static final long T0 = ClockedLimiterConfiguration.T0;

	@TestConfiguration(proxyBeanMethods = false)
	static class LimitsClock {

		@Bean
		TestClock rateLimitClock() {
			return new TestClock(T0);
		}

	}

	@Autowired
	private TestClock clock;

	@Autowired
	private RateLimitReset reset;

	@BeforeEach
	void startAfresh() {
		this.reset.resetAll();
		this.clock.set(T0);
	}

	@Test
	void aDeniedClientIsAdmittedOnceTheClockHasPassedItsWindow() throws Exception {
		exhaust("a");
		HttpResponse<String> denied = call("a");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("Retry-After")).hasValue("10");

		this.clock.advance(10_000);

		// at once: the denial this instance remembers ends with the clock, not 10 s of real time later
		assertThat(call("a").statusCode()).isEqualTo(200);
	}

	@Test
	void theEndpointShowsAClientsStateAtTheClocksTime() throws Exception {
		this.clock.set(T0 + 2_500);
		assertThat(call("b").statusCode()).isEqualTo(200);
		this.clock.set(T0 + 4_000);

		HttpResponse<String> state = get("/actuator/ratelimits/fw?client=key:b");
		assertThat(state.statusCode()).isEqualTo(200);
		assertThat(JsonPath.<Integer>read(state.body(), "$.states[0].remaining")).isEqualTo(3);
		assertThat(JsonPath.<Integer>read(state.body(), "$.states[0].resetAfterMs")).isEqualTo(6_000);
	}

	@Test
	void resetAllGivesEveryClientItsFullAllowanceAtOnce() throws Exception {
		for (String client : new String[] { "c", "d" }) {
			exhaust(client);
			assertThat(call(client).statusCode()).isEqualTo(429);
		}

		assertThat(this.reset.resetAll()).isEqualTo(2);

		// the clock has not moved: neither the store nor a remembered denial answers for the state before
		for (String client : new String[] { "c", "d" }) {
			exhaust(client);
		}
	}

	@Test
	void deleteOnTheEndpointResetsEveryClient() throws Exception {
		exhaust("e");
		assertThat(call("e").statusCode()).isEqualTo(429);

		HttpResponse<String> reset = delete("/actuator/ratelimits");
		assertThat(reset.statusCode()).isEqualTo(200);
		assertThat(JsonPath.<Integer>read(reset.body(), "$.deleted")).isEqualTo(1);

		assertThat(call("e").statusCode()).isEqualTo(200);
	}

	/** The window's 4 requests, each admitted. */
	private void exhaust(String client) throws IOException, InterruptedException {
		for (int i = 0; i < 4; i++) {
			assertThat(call(client).statusCode()).as("request %d of %s", i + 1, client).isEqualTo(200);
		}
	}

	private HttpResponse<String> call(String client) throws IOException, InterruptedException {
		return get("/clocked/fixed-window", "X-Client", client);
	}

}
