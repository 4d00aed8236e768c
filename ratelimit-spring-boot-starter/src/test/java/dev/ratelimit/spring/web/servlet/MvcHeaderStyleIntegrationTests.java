package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.HeaderStyleContract;
import org.junit.jupiter.api.Nested;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * {@link HeaderStyleContract} on Spring MVC. Each style is a {@code @SpringBootTest} of its own (none on this class,
 * so that no further server starts for it).
 */
class MvcHeaderStyleIntegrationTests {

	@Nested
	@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = "ratelimit.key-prefix=http-style-legacy-mvc:")
	class Legacy extends HeaderStyleContract.Legacy {

	}

	@Nested
	@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = "ratelimit.key-prefix=http-style-x-ratelimit-mvc:")
	class XRateLimit extends HeaderStyleContract.XRateLimit {

	}

	@Nested
	@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = "ratelimit.key-prefix=http-style-none-mvc:")
	class None extends HeaderStyleContract.None {

	}

}
