package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.RememberedDenialsContract;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@link RememberedDenialsContract} on Spring MVC. */
@SpringBootTest(classes = { RateLimitTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = "ratelimit.key-prefix=denials-mvc:")
class MvcRememberedDenialsIntegrationTests extends RememberedDenialsContract {

}
