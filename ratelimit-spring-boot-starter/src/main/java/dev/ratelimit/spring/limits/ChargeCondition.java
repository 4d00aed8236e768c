package dev.ratelimit.spring.limits;

import java.lang.reflect.Method;
import java.util.Collection;
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
	 * A filter rule's condition ({@code charge-on-status}): its response has one of {@code statuses}.
	 * @throws IllegalArgumentException when a status is not an HTTP status
	 */
	static ChargeCondition onStatus(Collection<Integer> statuses) {
		return new ChargeCondition(List.of(), null, checked(statuses));
	}

	/**
	 * {@code statuses}, each an HTTP status.
	 * @throws IllegalArgumentException naming the first that is not
	 */
	static Set<Integer> checked(Collection<Integer> statuses) {
		for (int status : statuses) {
			if (status < 100 || status > 599) {
				throw new IllegalArgumentException("chargeOnStatus " + status + " is not an HTTP status (100 to 599)");
			}
		}
		return Set.copyOf(statuses);
	}

	/** Whether a response with {@code status} charges (a filter rule's outcome: its status alone). */
	public boolean matchesStatus(int status) {
		return this.statuses.contains(status);
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

	/**
	 * The HTTP status an exception stands for: its own ({@link ErrorResponse}) or its type's
	 * ({@link ResponseStatus}); {@code null} when it does not say.
	 */
	public static @Nullable Integer statusOf(Throwable exception) {
		if (exception instanceof ErrorResponse response) {
			return response.getStatusCode().value();
		}
		ResponseStatus annotated = AnnotatedElementUtils.findMergedAnnotation(exception.getClass(),
				ResponseStatus.class);
		return (annotated != null) ? annotated.code().value() : null;
	}

	/** The HTTP status the outcome stands for, or {@code null} for an exception that does not say. */
	static @Nullable Integer status(Method method, @Nullable Object result, @Nullable Throwable exception) {
		if (exception != null) {
			return statusOf(exception);
		}
		if (result instanceof ResponseEntity<?> entity) {
			return entity.getStatusCode().value();
		}
		ResponseStatus annotated = AnnotatedElementUtils.findMergedAnnotation(method, ResponseStatus.class);
		return (annotated != null) ? annotated.code().value() : 200;
	}

}
