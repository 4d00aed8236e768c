package dev.ratelimit.spring.test.app;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.test.TestRedis;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The application's own {@link RateLimiter} (the auto-configured one backs off): on the shared test Redis, deciding
 * at the time of a {@link TestClock} bean, which is the application's {@code rateLimitClock} as well. It charges the limit named {@code oversized} one unit more than its
 * capacity, which no annotation may declare, to reach a request that can never be admitted. In a WebFlux application
 * it decides on threads of its own, never on an event loop ({@link ClockedRateLimiter}).
 */
@TestConfiguration(proxyBeanMethods = false)
public class ClockedLimiterConfiguration {

	/** The clock's start: a multiple of 10 s, 3,200 s into an hour (UTC). */
	public static final long T0 = 1_791_860_000_000L;

	/** Named so that the starter ages what it remembers of the decisions (denials, lines) on it too. */
	@Bean
	TestClock rateLimitClock() {
		return new TestClock(T0);
	}

	@Bean
	ClockedRateLimiter rateLimiter(TestClock clock, Environment environment, ApplicationContext context) {
		return new ClockedRateLimiter(TestRedis.shared(), environment.getRequiredProperty("ratelimit.key-prefix"),
				clock, ClockedLimiterConfiguration::oversize,
				(context instanceof ReactiveWebApplicationContext) ? decisionThreads() : null);
	}

	private static ExecutorService decisionThreads() {
		return Executors.newFixedThreadPool(4, (task) -> {
			Thread thread = new Thread(task, "clocked-limiter");
			thread.setDaemon(true);
			return thread;
		});
	}

	private static LimitRequest oversize(LimitRequest limit) {
		return limit.name().equals("oversized") ? limit.withCost(limit.definition().capacity() + 1) : limit;
	}

}
