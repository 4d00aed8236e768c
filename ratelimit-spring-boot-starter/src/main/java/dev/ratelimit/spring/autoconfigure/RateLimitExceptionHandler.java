package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.RateLimitException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Turns the limiter's exceptions into their responses: status, header fields and the problem body
 * ({@code application/problem+json}). Lowest precedence, so an application's own {@code @ExceptionHandler} for
 * {@link RateLimitException} or its subclasses, in an advice ordered ahead of this one, wins.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
final class RateLimitExceptionHandler {

	@ExceptionHandler(RateLimitException.class)
	ResponseEntity<ProblemDetail> handle(RateLimitException ex) {
		return ResponseEntity.status(ex.getStatusCode()).headers(ex.getHeaders()).body(ex.getBody());
	}

}
