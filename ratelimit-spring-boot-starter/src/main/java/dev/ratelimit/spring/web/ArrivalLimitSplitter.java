package dev.ratelimit.spring.web;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.limits.ConfiguredLimit;

/**
 * Splits a handler's {@code @RateLimited} limits between the request's arrival and the handler's call, the same on
 * Spring MVC and WebFlux: the filter decides, together with the rules, those that do not read the method's
 * arguments, and marks the request; the advisor then decides only the others.
 */
public final class ArrivalLimitSplitter {

	/** Request attribute: the handler method whose request-time limits the filter decided. */
	private static final String DECIDED = ArrivalLimitSplitter.class.getName() + ".decided";

	private ArrivalLimitSplitter() {
	}

	/**
	 * The limits of {@code handler} (most specific method of {@code beanType}) that neither read its arguments nor
	 * are charged by outcome, marking the request so that the advisor does not decide them again.
	 */
	public static List<ConfiguredLimit> onArrival(LimitedRequest request, RateLimitedMethodRegistry methods, Method handler,
			Class<?> beanType) {
		List<ConfiguredLimit> limits = onArrival(
				methods.limitsFor(RequestConfiguration.of(request, methods.configurations()), handler, beanType));
		if (!limits.isEmpty()) {
			request.setAttribute(DECIDED, handler);
		}
		return limits;
	}

	/**
	 * The limits the advisor decides for {@code method}: all of them, or, when the filter decided the others on the
	 * request's arrival, those whose key reads the arguments.
	 */
	public static List<ConfiguredLimit> leftForTheCall(LimitedRequest request, Method method,
			List<ConfiguredLimit> limits) {
		if (!method.equals(request.getAttribute(DECIDED))) {
			return limits;
		}
		// Once: the same method called again within the request is another call, charged in full.
		request.removeAttribute(DECIDED);
		return noneDecidedOnCall(limits) ? List.of() : limits.stream().filter(ConfiguredLimit::decidedOnCall).toList();
	}

	/**
	 * The limits that can be decided on arrival (their key does not read the arguments, and they are charged before
	 * the call); {@code limits} itself when all can (no copy per request).
	 */
	private static List<ConfiguredLimit> onArrival(List<ConfiguredLimit> limits) {
		if (noneDecidedOnCall(limits)) {
			return limits;
		}
		return limits.stream().filter((limit) -> !limit.decidedOnCall()).toList();
	}

	private static boolean noneDecidedOnCall(List<ConfiguredLimit> limits) {
		for (ConfiguredLimit limit : limits) {
			if (limit.decidedOnCall()) {
				return false;
			}
		}
		return true;
	}

}
