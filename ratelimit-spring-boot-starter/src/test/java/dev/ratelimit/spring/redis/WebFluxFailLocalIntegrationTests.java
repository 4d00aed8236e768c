package dev.ratelimit.spring.redis;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.ratelimit.spring.test.NoBlocking;

/**
 * {@link FailLocalIntegrationTests} on WebFlux, under BlockHound: local decisions, made on an event loop while the breaker is
 * open, never block it.
 */
@ExtendWith(NoBlocking.class)
class WebFluxFailLocalIntegrationTests extends FailLocalIntegrationTests {

	@Override
	String webApplicationType() {
		return "reactive";
	}

}
