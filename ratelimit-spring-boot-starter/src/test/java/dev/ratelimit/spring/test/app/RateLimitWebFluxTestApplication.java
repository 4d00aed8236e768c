package dev.ratelimit.spring.test.app;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The WebFlux application of the HTTP tests that run on both stacks: the same plain controllers as
 * {@link RateLimitTestApplication} where WebFlux serves them as they are, and reactive ones where the behaviour needs
 * a {@code Mono} (keys read from the handler's arguments). Tests start it with
 * {@code spring.main.web-application-type=reactive}: the test class path has Spring MVC too.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import({ LimitedController.class, ReactiveClientKeyController.class, ReactiveClockedController.class,
		ReactiveController.class, ReactivePrincipalFilter.class, ReactivePlacementController.class })
public class RateLimitWebFluxTestApplication {

	@Bean
	ReactiveAccountService reactiveAccountService() {
		return new ReactiveAccountService();
	}

	@Bean
	TenantResolver tenantResolver() {
		return new TenantResolver();
	}

}
