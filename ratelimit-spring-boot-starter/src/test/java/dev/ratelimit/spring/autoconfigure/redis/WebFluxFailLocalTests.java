package dev.ratelimit.spring.autoconfigure.redis;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.ratelimit.spring.autoconfigure.NoBlocking;

/**
 * {@link FailLocalTests} on WebFlux, under BlockHound: local decisions, made on an event loop while the breaker is
 * open, never block it.
 */
@ExtendWith(NoBlocking.class)
class WebFluxFailLocalTests extends FailLocalTests {

	@Override
	String webApplicationType() {
		return "reactive";
	}

}
