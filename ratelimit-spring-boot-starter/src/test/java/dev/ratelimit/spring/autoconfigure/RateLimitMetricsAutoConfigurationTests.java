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

	/*
	 * Micrometer's meters hidden, not all of io.micrometer: Spring MVC finds context-propagation through its own class
	 * loader, and ContextRegistry then loads its accessors through the context's, where a filter of all of
	 * io.micrometer hides Micrometer Observation's and fails the registry's initialisation (for the whole JVM: this
	 * test passed only after another had initialised it). An application without Micrometer has neither.
	 */
	@Test
	void withoutMicrometerEventsStillWork() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer.core")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RateLimitEnforcer.class);
			assertThat(context).doesNotHaveBean(RateLimitEventRecorder.class);
		});
	}

}
