package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.ratelimit.spring.RateLimitExceededException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.expression.EvaluationContext;

/**
 * {@link PermitWaits} for methods returning {@code Mono} or {@code Flux}: a wait is a {@link Mono#delay}, so no
 * thread is held, and a subscriber that cancels while it waits cancels the next decision too. Loaded only when
 * Reactor is on the class path. Internal to the starter.
 */
public final class ReactorPermitWaits {

	private ReactorPermitWaits() {
	}

	/**
	 * @return empty when the call may go ahead, or the error {@link PermitWaits#enforce} would throw
	 */
	public static Mono<Void> enforce(PermitWaits waits, LimitedRequest request, List<ConfiguredLimit> limits,
			EvaluationContext context, Duration maxWait) {
		return enforce(waits, request, limits, context, maxWait, Schedulers::parallel);
	}

	/**
	 * {@link #enforce(PermitWaits, LimitedRequest, List, EvaluationContext, Duration)}, going on after an answer of
	 * Redis on {@code continuation} (a request's own event loop), not on the Redis client's I/O thread; asked for
	 * only when Redis had not answered at once.
	 */
	public static Mono<Void> enforce(PermitWaits waits, LimitedRequest request, List<ConfiguredLimit> limits,
			EvaluationContext context, Duration maxWait, Supplier<Scheduler> continuation) {
		return Mono.defer(() -> attempt(waits, request, request, limits, context,
				System.nanoTime() + maxWait.toNanos(), continuation));
	}

	private static Mono<Void> attempt(PermitWaits waits, LimitedRequest request, LimitedRequest attempt,
			List<ConfiguredLimit> limits, EvaluationContext context, long deadline, Supplier<Scheduler> continuation) {
		return Mono.defer(() -> {
			CompletableFuture<Void> decision = waits.enforcer().enforce(attempt, limits, context).toCompletableFuture();
			Mono<Void> decided = Mono.fromFuture(decision, true);
			return decision.isDone() ? decided : decided.publishOn(continuation.get());
		}).onErrorResume(RateLimitExceededException.class, (denied) -> {
			long waitNanos = PermitWaits.waitNanos(denied, deadline);
			if (waitNanos < 0) {
				return Mono.error(denied);
			}
			return Mono.delay(Duration.ofNanos(waitNanos))
				.then(attempt(waits, request, RateLimitEnforcer.anotherAttempt(request), limits, context, deadline,
						continuation));
		});
	}

}
