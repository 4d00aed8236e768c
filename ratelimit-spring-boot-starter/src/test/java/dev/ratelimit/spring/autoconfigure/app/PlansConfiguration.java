package dev.ratelimit.spring.autoconfigure.app;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** What the plan and shadow tests add to a test application: their controller and the API keys' plans. */
@Configuration(proxyBeanMethods = false)
@Import(PlansController.class)
public class PlansConfiguration {

	@Bean
	ApiKeyPlans apiKeyPlans() {
		return new ApiKeyPlans();
	}

}
