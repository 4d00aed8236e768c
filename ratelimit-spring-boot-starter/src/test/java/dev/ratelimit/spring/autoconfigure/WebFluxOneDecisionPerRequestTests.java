package dev.ratelimit.spring.autoconfigure;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link OneDecisionPerRequestContract} on WebFlux, under BlockHound. */
@ExtendWith(NoBlocking.class)
class WebFluxOneDecisionPerRequestTests extends OneDecisionPerRequestContract {

	@Override
	String webApplicationType() {
		return "reactive";
	}

}
