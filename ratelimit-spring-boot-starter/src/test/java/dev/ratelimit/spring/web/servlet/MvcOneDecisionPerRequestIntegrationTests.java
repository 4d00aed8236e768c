package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.web.OneDecisionPerRequestContract;

/** {@link OneDecisionPerRequestContract} on Spring MVC. */
class MvcOneDecisionPerRequestIntegrationTests extends OneDecisionPerRequestContract {

	@Override
	protected String webApplicationType() {
		return "servlet";
	}

}
