package dev.ratelimit.spring.autoconfigure;

/** {@link OneDecisionPerRequestContract} on Spring MVC. */
class MvcOneDecisionPerRequestTests extends OneDecisionPerRequestContract {

	@Override
	String webApplicationType() {
		return "servlet";
	}

}
