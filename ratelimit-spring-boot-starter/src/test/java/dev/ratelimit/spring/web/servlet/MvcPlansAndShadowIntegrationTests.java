package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.PlansAndShadowContract;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@link PlansAndShadowContract} on Spring MVC. */
@SpringBootTest(classes = { RateLimitTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = "ratelimit.key-prefix=plans-mvc:")
class MvcPlansAndShadowIntegrationTests extends PlansAndShadowContract {

}
