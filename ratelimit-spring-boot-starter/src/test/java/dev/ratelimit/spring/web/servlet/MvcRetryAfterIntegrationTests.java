package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.test.app.ClockedLimiterConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.RetryAfterContract;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@link RetryAfterContract} on Spring MVC. */
@SpringBootTest(classes = { RateLimitTestApplication.class, ClockedLimiterConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = "ratelimit.key-prefix=http-clocked-mvc:")
class MvcRetryAfterIntegrationTests extends RetryAfterContract {

}
