package dev.ratelimit.spring.test.app;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The application the HTTP tests run: every auto-configuration, and the controllers of this package imported one by
 * one (no component scanning, so test configurations elsewhere in the test sources are never picked up).
 * Deliberately not a {@code @SpringBootConfiguration}: tests name it in {@code @SpringBootTest(classes = ...)}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import({ LimitedController.class, DispatchController.class, ClientKeyController.class, ClockedController.class,
		ServletPrincipalFilter.class })
public class RateLimitTestApplication {

	/** Named for key expressions ({@code @tenantResolver}); an imported class would be named by its class name. */
	@Bean
	TenantResolver tenantResolver() {
		return new TenantResolver();
	}

}
