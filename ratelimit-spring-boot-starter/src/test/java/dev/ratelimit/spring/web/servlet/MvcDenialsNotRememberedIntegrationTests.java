package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.RememberedDenialsContract;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@link RememberedDenialsContract} on Spring MVC with {@code ratelimit.denials.remember=false}. */
@SpringBootTest(classes = { RateLimitTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=denials-off-mvc:", "ratelimit.denials.remember=false" })
class MvcDenialsNotRememberedIntegrationTests extends RememberedDenialsContract {

	@Override
	protected boolean remembers() {
		return false;
	}

}
