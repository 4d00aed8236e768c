package dev.ratelimit.spring.web.reactive;

import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.spring.test.app.RateLimitWebFluxTestApplication;
import dev.ratelimit.spring.web.HeaderStyleContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * {@link HeaderStyleContract} on WebFlux, with BlockHound watching. Each style is a {@code @SpringBootTest} of its
 * own (none on this class, so that no further server starts for it).
 */
@ExtendWith(NoBlocking.class)
class WebFluxHeaderStyleIntegrationTests {

	@Nested
	@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.web-application-type=reactive",
					"ratelimit.key-prefix=http-style-legacy-webflux:" })
	class Legacy extends HeaderStyleContract.Legacy {

	}

	@Nested
	@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.web-application-type=reactive",
					"ratelimit.key-prefix=http-style-x-ratelimit-webflux:" })
	class XRateLimit extends HeaderStyleContract.XRateLimit {

	}

	@Nested
	@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.web-application-type=reactive",
					"ratelimit.key-prefix=http-style-none-webflux:" })
	class None extends HeaderStyleContract.None {

	}

}
