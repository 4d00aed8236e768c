package dev.ratelimit.spring.autoconfigure;

import java.util.Arrays;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.enforce.MeteredEventRecorder;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.RateLimitEventRecorder;
import dev.ratelimit.spring.web.servlet.RateLimitFilter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each concern that an application may switch off ({@code spring.autoconfigure.exclude}) has an auto-configuration of
 * its own: the limiter and the web filter work without the metrics' or the endpoint's, and each of those backs off
 * alone. In memory, so that no Redis is needed.
 */
class SeparateAutoConfigurationsTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class))
		.withUserConfiguration(Registry.class)
		.withPropertyValues("ratelimit.store=in-memory", "management.endpoints.web.exposure.include=ratelimits",
				"ratelimit.filter.rules[0].name=api", "ratelimit.filter.rules[0].paths=/api/**");

	@Test
	void everyAutoConfigurationTogetherGivesTheLimiterTheFilterTheAdvisorTheMetricsAndTheEndpoint() {
		this.contextRunner.withConfiguration(StarterAutoConfigurations.all()).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RateLimiter.class).hasSingleBean(RateLimitEnforcer.class)
				.hasSingleBean(RateLimitedAdvisor.class).hasSingleBean(RateLimitsEndpoint.class)
				.hasBean("rateLimitFilter");
			assertThat(context.getBean(RateLimitEventRecorder.class)).isInstanceOf(MeteredEventRecorder.class);
			assertThat(context.getBean(MeterRegistry.class).find("ratelimit.decisions").tag("limit", "api").counters())
				.isNotEmpty();
		});
	}

	@Test
	void withoutTheEndpointsAutoConfigurationTheRestWorks() {
		this.contextRunner.withConfiguration(allBut(RateLimitsEndpointAutoConfiguration.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class)
				.hasSingleBean(RateLimitedAdvisor.class).hasBean("rateLimitFilter");
			assertThat(context.getBean(RateLimitEventRecorder.class)).isInstanceOf(MeteredEventRecorder.class);
		});
	}

	@Test
	void withoutTheMetricsAutoConfigurationTheRestWorksUnmetered() {
		this.contextRunner.withConfiguration(allBut(RateLimitMetricsAutoConfiguration.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitEventRecorder.class)
				.hasSingleBean(RateLimitEnforcer.class).hasSingleBean(RateLimitsEndpoint.class);
			assertThat(context.getBean(MeterRegistry.class).find("ratelimit.decisions").tag("limit", "api").counters())
				.isEmpty();
		});
	}

	@Test
	void withoutSpringMvcsAutoConfigurationNoFilterIsRegistered() {
		this.contextRunner.withConfiguration(allBut(RateLimitWebMvcAutoConfiguration.class)).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RateLimiter.class).doesNotHaveBean("rateLimitFilter");
			assertThat(context.getBeansOfType(FilterRegistrationBean.class).values())
				.noneMatch((registration) -> registration.getFilter() instanceof RateLimitFilter);
		});
	}

	private static AutoConfigurations allBut(Class<?> excluded) {
		Class<?>[] rest = Arrays.stream(StarterAutoConfigurations.classes())
			.filter((type) -> type != excluded)
			.toArray(Class<?>[]::new);
		assertThat(rest).hasSize(StarterAutoConfigurations.classes().length - 1);
		return AutoConfigurations.of(rest);
	}

	@Configuration(proxyBeanMethods = false)
	static class Registry {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
