package dev.ratelimit.spring;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Base of the answers the rate limiter gives instead of the handler's: each carries its status, header fields and
 * RFC 9457 problem body ({@link #getBody()}), ready for Spring MVC's exception handling. Applications customise
 * them as any {@link ErrorResponseException}, for example with their own {@code @ExceptionHandler}.
 */
public abstract class RateLimitException extends ErrorResponseException {

	protected RateLimitException(HttpStatus status, ProblemDetail body, HttpHeaders headers) {
		super(status, body, null);
		getHeaders().putAll(headers);
		getHeaders().setCacheControl("no-store");
	}

	/**
	 * The status and the problem's detail, such as {@code 429 TOO_MANY_REQUESTS "..."}. Not the header fields and
	 * body that {@link ErrorResponseException#getMessage()} formats: Spring's exception handling reads the message of
	 * every exception it resolves (to tell a disconnected client), and formatting them cost a denied flood about a
	 * fifth of its throughput (docs/BENCHMARKS-HISTORY.md, "How the gap was found").
	 */
	@Override
	public String getMessage() {
		return getStatusCode() + " \"" + getBody().getDetail() + "\"";
	}

}
