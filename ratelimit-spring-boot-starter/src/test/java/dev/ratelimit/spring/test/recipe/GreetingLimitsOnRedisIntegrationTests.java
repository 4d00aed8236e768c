package dev.ratelimit.spring.test.recipe;

import java.time.Duration;

import dev.ratelimit.spring.RateLimitReset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/TESTING.md: the limits on, on a Redis the tests start, on a clock the tests move, reset before each test. */
// snippet:start redis
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class GreetingLimitsOnRedisIntegrationTests {

	static final RedisServer redis = RedisServer.start();

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", redis::url);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Clock {

		@Bean
		LimitsClock rateLimitClock() {
			return new LimitsClock();
		}

	}

	@Autowired
	LimitsClock clock;

	@Autowired
	RateLimitReset rateLimits;

	@LocalServerPort
	int port;

	@BeforeEach
	void freshLimits() {
		this.rateLimits.resetAll();
	}

	@Test
	void aClientOverItsLimitIsAdmittedAgainOnceTheWindowHasPassed() {
		assertThat(greet("k-1")).isEqualTo(HttpStatus.OK);
		assertThat(greet("k-1")).isEqualTo(HttpStatus.OK);
		assertThat(greet("k-1")).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);

		this.clock.advance(Duration.ofSeconds(61));

		assertThat(greet("k-1")).isEqualTo(HttpStatus.OK);
	}

	HttpStatusCode greet(String apiKey) {
		return RestClient.create("http://localhost:" + this.port)
			.get()
			.uri("/greeting")
			.header("X-Api-Key", apiKey)
			.exchangeForRequiredValue((request, response) -> response.getStatusCode());
	}

}
// snippet:end redis
