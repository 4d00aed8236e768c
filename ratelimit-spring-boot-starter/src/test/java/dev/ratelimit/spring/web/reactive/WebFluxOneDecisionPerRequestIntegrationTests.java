package dev.ratelimit.spring.web.reactive;

import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.spring.web.OneDecisionPerRequestContract;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link OneDecisionPerRequestContract} on WebFlux, under BlockHound. */
@ExtendWith(NoBlocking.class)
class WebFluxOneDecisionPerRequestIntegrationTests extends OneDecisionPerRequestContract {

	@Override
	protected String webApplicationType() {
		return "reactive";
	}

}
