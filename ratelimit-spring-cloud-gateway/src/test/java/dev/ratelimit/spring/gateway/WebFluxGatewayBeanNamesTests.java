package dev.ratelimit.spring.gateway;

import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

/** The module's bean names on Gateway Server WebFlux. */
class WebFluxGatewayBeanNamesTests extends GatewayBeanNamesContract {

	@Override
	AbstractApplicationContextRunner<?, ?, ?> runner() {
		return new ReactiveWebApplicationContextRunner();
	}

	@Override
	String[] expectedNames() {
		return new String[] { "rateLimitRouteLimits", "rateLimitedGatewayFilterFactory", "rateLimitGatewayRateLimiter",
				"rateLimitRouteLimitsCheck" };
	}

}
