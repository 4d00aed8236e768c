package dev.ratelimit.spring;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * A request or call denied by one or several limits: {@code 429 Too Many Requests} with {@code Retry-After} in
 * delay-seconds (RFC 9110 §10.2.3; absent when the request can never be admitted), the rate-limit header fields, and
 * a problem body of type {@code quota-exceeded} (draft-ietf-httpapi-ratelimit-headers) listing the
 * {@code violated-policies}. Not cacheable (RFC 6585 §4). Outside an HTTP request, the caller reads
 * {@link #getLimitName()} and {@link #getRetryAfter()}.
 */
public class RateLimitExceededException extends RateLimitException {

	/** {@link #getRetryAfterMs()} of a request that can never be admitted, however long it waits. */
	public static final long NEVER = -1;

	private final List<String> violatedPolicies;

	private final String limitName;

	private final long retryAfterMs;

	/**
	 * @param body the problem details, type {@code quota-exceeded}
	 * @param headers {@code Retry-After} and the rate-limit fields
	 * @param violatedPolicies names of the limits that denied the request; not empty
	 * @param limitName the limit that governs the answer (the one whose wait is longest)
	 * @param retryAfterMs ms until the request could be admitted by that limit, exactly (not rounded up to seconds
	 * as {@code Retry-After} is), or {@link #NEVER}
	 */
	public RateLimitExceededException(ProblemDetail body, HttpHeaders headers, List<String> violatedPolicies,
			String limitName, long retryAfterMs) {
		super(HttpStatus.TOO_MANY_REQUESTS, body, headers);
		this.violatedPolicies = List.copyOf(violatedPolicies);
		this.limitName = limitName;
		this.retryAfterMs = retryAfterMs;
	}

	/** Names of the limits that denied the request. */
	public List<String> getViolatedPolicies() {
		return this.violatedPolicies;
	}

	/** The name of the limit that governs the answer: among those that denied, the one whose wait is longest. */
	public String getLimitName() {
		return this.limitName;
	}

	/** Ms until the request could be admitted, if nothing else arrives; {@link #NEVER} when it never can. */
	public long getRetryAfterMs() {
		return this.retryAfterMs;
	}

	/** {@link #getRetryAfterMs()} as a duration; empty when the request can never be admitted. */
	public Optional<Duration> getRetryAfter() {
		return (this.retryAfterMs == NEVER) ? Optional.empty()
				: Optional.of(Duration.ofMillis(this.retryAfterMs));
	}

	/** Whether the request can never be admitted: its cost exceeds what the limit allows. */
	public boolean isNever() {
		return this.retryAfterMs == NEVER;
	}

}
