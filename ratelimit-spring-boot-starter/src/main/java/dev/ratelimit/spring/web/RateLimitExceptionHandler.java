package dev.ratelimit.spring.web;

import dev.ratelimit.spring.RateLimitException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Turns the limiter's exceptions into their responses: status, header fields and the problem body
 * ({@code application/problem+json}).
 *
 * <p>
 * Ordered just ahead of advice without an {@code @Order} (which has the lowest precedence), so an application's
 * catch-all {@code @ExceptionHandler(Exception.class)} does not turn a 429 into a 500. To answer rate-limit denials
 * your own way, handle {@link RateLimitException} or a subclass in an advice with an explicit {@code @Order}, or
 * define a bean of this type.
 */
@ControllerAdvice
@Order(RateLimitExceptionHandler.ORDER)
public final class RateLimitExceptionHandler {

	static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	@ExceptionHandler(RateLimitException.class)
	ResponseEntity<ProblemDetail> handle(RateLimitException ex) {
		return ResponseEntity.status(ex.getStatusCode()).headers(ex.getHeaders()).body(ex.getBody());
	}

}
