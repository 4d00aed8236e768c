package dev.ratelimit.spring.actuate.endpoint;


import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Error;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/** The endpoint's answers other than a 200, and its terms, shared by its operations. */
final class Responses {

	private static final Log logger = LogFactory.getLog(RateLimitsEndpoint.class);

	private Responses() {
	}

	static WebEndpointResponse<Object> badRequest(@Nullable String message) {
		return new WebEndpointResponse<>(new Error(message), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	static WebEndpointResponse<Object> notFound(LimitLookup lookup, String limit) {
		return new WebEndpointResponse<>(
				new Error("No rate limit is named '" + limit + "'; the limits are " + lookup.knownNames()),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/** 503 when the store did not answer (logged), 501 for an operation the store cannot do. */
	static WebEndpointResponse<Object> storeFailed(String operation, String name, RuntimeException ex) {
		return storeFailed(operation + " rate limit '" + name + "'", ex);
	}

	/**
	 * 503 when the store did not answer (logged), 501 for an operation the store cannot do.
	 * @param what what the endpoint could not do, for the log: "reset every client's state"
	 */
	static WebEndpointResponse<Object> storeFailed(String what, RuntimeException ex) {
		if (ex instanceof UnsupportedOperationException) {
			return new WebEndpointResponse<>(new Error(ex.getMessage()), 501);
		}
		logger.warn("The ratelimits endpoint could not " + what + ": " + ex);
		return new WebEndpointResponse<>(new Error("The rate limiter's store did not answer: " + ex),
				WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
	}

}
