package dev.ratelimit.spring.actuate.endpoint;

import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@link RateLimitsEndpointContract} on Spring MVC. */
@SpringBootTest(classes = { RateLimitTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = "ratelimit.key-prefix=endpoint-mvc:")
class MvcRateLimitsEndpointIntegrationTests extends RateLimitsEndpointContract {

}
