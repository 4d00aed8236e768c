package dev.ratelimit.spring;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * A key expression yielded null or an empty string and {@code ratelimit.missing-key=reject}: {@code 400 Bad
 * Request} with a problem body.
 */
public class RateLimitKeyMissingException extends RateLimitException {

	/**
	 * @param body the problem details, naming the limit whose key is missing
	 */
	public RateLimitKeyMissingException(ProblemDetail body) {
		super(HttpStatus.BAD_REQUEST, body, new HttpHeaders());
	}

}
