package dev.ratelimit.spring.gateway;

import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** The module's bean names on Gateway Server MVC. */
class MvcGatewayBeanNamesTests extends GatewayBeanNamesContract {

	@Override
	AbstractApplicationContextRunner<?, ?, ?> runner() {
		return new WebApplicationContextRunner();
	}

	@Override
	String[] expectedNames() {
		return new String[] { "rateLimitRouteLimits", "rateLimitMvcRouteLimiter", "rateLimitMvcRouteLimitsCheck",
				"rateLimitedFilterFunctions" };
	}

}
