package dev.ratelimit.spring.enforce;

import java.util.List;

import dev.ratelimit.spring.RateLimitExceededException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/** The denial a waiting call pauses after, for the waits' unit tests ({@link PermitWaitTests}, {@link PermitLinesTests}). */
final class Denials {

	private Denials() {
	}

	/** A 429 of the limit {@code api} with this retry-after, as the enforcer throws it. */
	static RateLimitExceededException denied(long retryAfterMs) {
		return new RateLimitExceededException(ProblemDetail.forStatus(HttpStatus.TOO_MANY_REQUESTS), new HttpHeaders(),
				List.of("api"), "api", retryAfterMs);
	}

}
