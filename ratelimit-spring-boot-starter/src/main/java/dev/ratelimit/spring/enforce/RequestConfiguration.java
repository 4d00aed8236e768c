package dev.ratelimit.spring.enforce;

import dev.ratelimit.spring.limits.LimitConfiguration;
import dev.ratelimit.spring.limits.LimitConfigurations;

/**
 * A request's one configuration of the limits: the one in force when it is first asked for (by the first filter or
 * the advisor), kept as a request attribute as its deadline is ({@link RequestDeadline}), so that its rules, its
 * handler's limits and a call's admission and charge all come from one configuration even when a change lands
 * while it runs.
 */
public final class RequestConfiguration {

	private static final String ATTRIBUTE = RequestConfiguration.class.getName();

	private RequestConfiguration() {
	}

	/** The configuration of {@code request}: the one in force when first asked for. */
	public static LimitConfiguration of(LimitedRequest request, LimitConfigurations configurations) {
		if (request.getAttribute(ATTRIBUTE) instanceof LimitConfiguration configuration) {
			return configuration;
		}
		LimitConfiguration configuration = configurations.current();
		request.setAttribute(ATTRIBUTE, configuration);
		return configuration;
	}

}
