package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitsEndpointAutoConfiguration}: the {@code ratelimits} endpoint exists only when exposed, with
 * Actuator, in a web application. On a Redis where nothing listens ({@link WithoutRedis}): building the beans connects
 * nothing, and no test here needs or waits for a Redis.
 */
class RateLimitsEndpointAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = WithoutRedis.servlet();

	private final ApplicationContextRunner nonWebContextRunner = WithoutRedis.nonWeb();

	@Test
	void theRateLimitsEndpointExistsOnlyWhenExposedAndWithActuator() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class));
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RateLimitsEndpoint.class));
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
					"management.endpoint.ratelimits.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class));
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=*")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimitEnforcer.class)
				.doesNotHaveBean(RateLimitsEndpoint.class));
		this.nonWebContextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class));
	}

}
