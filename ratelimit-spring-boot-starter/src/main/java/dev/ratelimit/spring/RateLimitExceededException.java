package dev.ratelimit.spring;

import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * A request denied by one or several limits: {@code 429 Too Many Requests} with {@code Retry-After} in
 * delay-seconds (RFC 9110 §10.2.3; absent when the request can never be admitted), the rate-limit header fields, and
 * a problem body of type {@code quota-exceeded} (draft-ietf-httpapi-ratelimit-headers) listing the
 * {@code violated-policies}. Not cacheable (RFC 6585 §4).
 */
public class RateLimitExceededException extends RateLimitException {

	private final List<String> violatedPolicies;

	/**
	 * @param body the problem details, type {@code quota-exceeded}
	 * @param headers {@code Retry-After} and the rate-limit fields
	 * @param violatedPolicies names of the limits that denied the request
	 */
	public RateLimitExceededException(ProblemDetail body, HttpHeaders headers, List<String> violatedPolicies) {
		super(HttpStatus.TOO_MANY_REQUESTS, body, headers);
		this.violatedPolicies = List.copyOf(violatedPolicies);
	}

	/** Names of the limits that denied the request. */
	public List<String> getViolatedPolicies() {
		return this.violatedPolicies;
	}

}
