package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.RateLimitEventRecorder;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitMetricsAutoConfiguration}: without Micrometer the limiter works unmetered
 * ({@link SeparateAutoConfigurationsTests} has the metered side). On a Redis where nothing listens
 * ({@link WithoutRedis}): building the beans connects nothing, and no test here needs or waits for a Redis.
 */
class RateLimitMetricsAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = WithoutRedis.servlet();

	@Test
	void withoutMicrometerEventsStillWork() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RateLimitEnforcer.class);
			assertThat(context).doesNotHaveBean(RateLimitEventRecorder.class);
		});
	}

}
