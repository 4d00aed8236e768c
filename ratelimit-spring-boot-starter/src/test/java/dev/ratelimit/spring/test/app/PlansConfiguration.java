package dev.ratelimit.spring.test.app;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * What the plan, shadow and metrics tests add to a test application: their controller, the API keys' plans and a
 * meter registry.
 */
@Configuration(proxyBeanMethods = false)
@Import(PlansController.class)
public class PlansConfiguration {

	@Bean
	ApiKeyPlans apiKeyPlans() {
		return new ApiKeyPlans();
	}

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

}
