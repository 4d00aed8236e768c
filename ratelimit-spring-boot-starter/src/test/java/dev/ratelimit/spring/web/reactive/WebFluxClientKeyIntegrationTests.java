package dev.ratelimit.spring.web.reactive;

import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.spring.test.app.RateLimitWebFluxTestApplication;
import dev.ratelimit.spring.web.ClientKeyContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * {@link ClientKeyContract} on WebFlux, with BlockHound watching. Each configuration is a {@code @SpringBootTest} of
 * its own (none on this class, so that no third server starts for it).
 */
@ExtendWith(NoBlocking.class)
class WebFluxClientKeyIntegrationTests {

	@Nested
	@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.web-application-type=reactive", "ratelimit.key-prefix=http-keys-webflux:" })
	class FallingBackToTheClientIp extends ClientKeyContract.FallingBackToTheClientIp {

	}

	@Nested
	@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.web-application-type=reactive",
					"ratelimit.key-prefix=http-keys-reject-webflux:" })
	class RejectingAMissingKey extends ClientKeyContract.RejectingAMissingKey {

	}

}
