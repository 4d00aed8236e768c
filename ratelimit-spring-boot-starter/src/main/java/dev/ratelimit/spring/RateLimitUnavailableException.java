package dev.ratelimit.spring;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * Redis could not decide a request whose limit is {@code fail-closed}: {@code 503 Service Unavailable} with
 * {@code Retry-After} ({@code ratelimit.redis.unavailable-retry-after}) and a problem body.
 */
public class RateLimitUnavailableException extends RateLimitException {

	/**
	 * @param body the problem details
	 * @param headers {@code Retry-After} in delay-seconds
	 */
	public RateLimitUnavailableException(ProblemDetail body, HttpHeaders headers) {
		super(HttpStatus.SERVICE_UNAVAILABLE, body, headers);
	}

}
