package dev.ratelimit.spring.limits;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * When a call charged by outcome is charged ({@code @RateLimited(chargeOn, chargeWhen, chargeOnStatus)}): when any
 * of the conditions given matches.
 *
 * @param exceptions thrown exception types that charge (subtypes included)
 * @param expression a SpEL condition over {@code #result} and {@code #exception}, or {@code null}
 * @param statuses HTTP statuses whose outcome charges
 */
public record ChargeCondition(List<Class<? extends Throwable>> exceptions, @Nullable Expression expression,
		Set<Integer> statuses) {

	public ChargeCondition {
		exceptions = List.copyOf(exceptions);
		statuses = Set.copyOf(statuses);
	}

	/**
	 * Whether the call's outcome charges.
	 * @param context the call's evaluation context, with {@code #result} and {@code #exception} set
	 * @throws RuntimeException from the expression: the caller decides what a failed condition means
	 */
	public boolean matches(Method method, @Nullable Object result, @Nullable Throwable exception,
			EvaluationContext context) {
		if (exception != null && this.exceptions.stream().anyMatch((type) -> type.isInstance(exception))) {
			return true;
		}
		if (!this.statuses.isEmpty()) {
			Integer status = status(method, result, exception);
			if (status != null && this.statuses.contains(status)) {
				return true;
			}
		}
		return this.expression != null && Boolean.TRUE.equals(this.expression.getValue(context, Boolean.class));
	}

	/** The HTTP status the outcome stands for, or {@code null} for an exception that does not say. */
	static @Nullable Integer status(Method method, @Nullable Object result, @Nullable Throwable exception) {
		if (exception != null) {
			if (exception instanceof ErrorResponse response) {
				return response.getStatusCode().value();
			}
			ResponseStatus annotated = AnnotatedElementUtils.findMergedAnnotation(exception.getClass(),
					ResponseStatus.class);
			return (annotated != null) ? annotated.code().value() : null;
		}
		if (result instanceof ResponseEntity<?> entity) {
			return entity.getStatusCode().value();
		}
		ResponseStatus annotated = AnnotatedElementUtils.findMergedAnnotation(method, ResponseStatus.class);
		return (annotated != null) ? annotated.code().value() : 200;
	}

}
