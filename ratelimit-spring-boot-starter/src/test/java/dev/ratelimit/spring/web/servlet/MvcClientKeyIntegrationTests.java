package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.ClientKeyContract;
import org.junit.jupiter.api.Nested;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * {@link ClientKeyContract} on Spring MVC. Each configuration is a {@code @SpringBootTest} of its own (none on this
 * class, so that no third server starts for it).
 */
class MvcClientKeyIntegrationTests {

	@Nested
	@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = "ratelimit.key-prefix=http-keys-mvc:")
	class FallingBackToTheClientIp extends ClientKeyContract.FallingBackToTheClientIp {

	}

	@Nested
	@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = "ratelimit.key-prefix=http-keys-reject-mvc:")
	class RejectingAMissingKey extends ClientKeyContract.RejectingAMissingKey {

	}

}
