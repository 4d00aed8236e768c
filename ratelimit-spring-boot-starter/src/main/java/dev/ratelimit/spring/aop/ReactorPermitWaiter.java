package dev.ratelimit.spring.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.PermitWait;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.aopalliance.intercept.MethodInvocation;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.expression.EvaluationContext;

/**
 * {@link PermitWaiter} for methods whose {@link ReturnType} is reactive: a wait is a {@link Mono#delay}, so no
 * thread is held, and a subscriber that cancels while it waits cancels the next decision too. Also charge by
 * outcome for one value ({@link ChargeByOutcome}), whose reads and charge run on Reactor's bounded elastic
 * threads, never on an event loop. Loaded only when Reactor is on the class path.
 */
public final class ReactorPermitWaiter {

	private ReactorPermitWaiter() {
	}

	/**
	 * @return empty when the call may go ahead, or the error {@link PermitWaiter#enforce} would throw
	 */
	public static Mono<Void> enforce(PermitWaiter waits, LimitedRequest request, List<ConfiguredLimit> limits,
			EvaluationContext context, Duration maxWait) {
		return enforce(waits, request, limits, context, maxWait, Schedulers::parallel);
	}

	/**
	 * {@link #enforce(PermitWaiter, LimitedRequest, List, EvaluationContext, Duration)}, going on after an answer of
	 * Redis on {@code continuation} (a request's own event loop), not on the Redis client's I/O thread; asked for
	 * only when Redis had not answered at once.
	 */
	public static Mono<Void> enforce(PermitWaiter waits, LimitedRequest request, List<ConfiguredLimit> limits,
			EvaluationContext context, Duration maxWait, Supplier<Scheduler> continuation) {
		return untilAdmitted(request, maxWait, (attempt) -> decided(waits, attempt, limits, context, continuation));
	}

	/**
	 * A call of a method of one value ({@link ReturnType.Kind#SINGLE}) with limits charged by outcome: admitted as
	 * {@link ChargeByOutcome} admits, the method's publisher subscribed, then charged by its outcome before its value
	 * or error goes on.
	 */
	@SuppressWarnings("NullAway") // signal.getThrowable() of a signal that isOnError()
	public static Mono<Object> invokeChargedByOutcome(PermitWaiter waits, MethodInvocation invocation, Method method,
			LimitedRequest request, List<ConfiguredLimit> limits, EvaluationContext context, Duration maxWait,
			Supplier<Scheduler> continuation) {
		RateLimitEnforcer enforcer = waits.enforcer();
		List<ConfiguredLimit> byOutcome = ChargeByOutcome.byOutcome(limits, true);
		List<ConfiguredLimit> before = ChargeByOutcome.byOutcome(limits, false);
		Mono<List<LimitDecision>> admission = untilAdmitted(request, maxWait, (attempt) -> Mono
			// the reads block: off any event loop
			.fromCallable(() -> enforcer.peekAdmission(attempt, byOutcome, context))
			.subscribeOn(Schedulers.boundedElastic())
			.flatMap((peeked) -> before.isEmpty() ? Mono.just(peeked)
					: decided(waits, attempt, before, context, continuation).thenReturn(peeked))
			.doOnNext((peeked) -> enforcer.admitted(attempt)));
		ReturnType type = ReturnType.of(method.getReturnType());
		return admission.flatMap((peeked) -> Mono.defer(() -> Mono.from(ReactorCallAdapter.proceed(invocation, type)))
			.materialize()
			.flatMap((signal) -> Mono.fromRunnable(() -> ChargeByOutcome.charge(enforcer, request, byOutcome, method,
					signal.get(), signal.getThrowable(), context, peeked))
				.subscribeOn(Schedulers.boundedElastic()).publishOn(continuation.get()).then(signal.isOnError()
					? Mono.error(signal.getThrowable()) : Mono.justOrEmpty(signal.get()))));
	}

	/** {@code attempt} until it admits, waiting each denial's retry-after with a delay, up to {@code maxWait}. */
	private static <T> Mono<T> untilAdmitted(LimitedRequest request, Duration maxWait,
			Function<LimitedRequest, Mono<T>> attempt) {
		return Mono.defer(() -> {
			PermitWait wait = PermitWait.of(request, maxWait);
			return attempt(wait, wait.firstAttempt(), attempt);
		});
	}

	private static <T> Mono<T> attempt(PermitWait wait, LimitedRequest current,
			Function<LimitedRequest, Mono<T>> attempt) {
		return Mono.defer(() -> attempt.apply(current)).onErrorResume(RateLimitExceededException.class, (denied) -> {
			long waitNanos = wait.waitNanos(denied);
			if (waitNanos < 0) {
				return Mono.error(denied);
			}
			return Mono.delay(Duration.ofNanos(waitNanos)).then(attempt(wait, wait.nextAttempt(), attempt));
		});
	}

	private static Mono<Void> decided(PermitWaiter waits, LimitedRequest attempt, List<ConfiguredLimit> limits,
			EvaluationContext context, Supplier<Scheduler> continuation) {
		return Mono.defer(() -> {
			CompletableFuture<Void> decision = waits.enforcer().enforce(attempt, limits, context).toCompletableFuture();
			Mono<Void> decided = Mono.fromFuture(decision, true);
			return decision.isDone() ? decided : decided.publishOn(continuation.get());
		});
	}

}
