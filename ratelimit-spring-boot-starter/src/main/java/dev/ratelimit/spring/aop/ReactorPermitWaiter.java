package dev.ratelimit.spring.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.enforce.DecisionObservations;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.OutcomeCharger;
import dev.ratelimit.spring.enforce.PermitWait;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationContext;

/**
 * {@link PermitWaiter} for methods whose {@link ReturnType} is reactive: a wait is a {@code Mono} of its pause, so no
 * thread is held, and a subscriber that cancels while it waits cancels the next decision too. Also charge by
 * outcome for one value ({@link ChargeByOutcome}), whose reads and charge run on Reactor's bounded elastic
 * threads, never on an event loop. Loaded only when Reactor is on the class path.
 */
public final class ReactorPermitWaiter {

	private final PermitWaiter waits;

	private final Supplier<Scheduler> continuation;

	/**
	 * @param waits the blocking callers' waiter, whose enforcer and wait policy this one shares
	 * @param continuation where to go on after an answer of Redis (a request's own event loop, say), rather than on
	 * the Redis client's I/O thread; asked for only when Redis had not answered at once
	 */
	public ReactorPermitWaiter(PermitWaiter waits, Supplier<Scheduler> continuation) {
		this.waits = waits;
		this.continuation = continuation;
	}

	/**
	 * @param held where the leases of concurrency limits are kept, for the caller to give back when the call ends
	 * @return empty when the call may go ahead, or the error {@link PermitWaiter#enforce} would throw
	 */
	public Mono<Void> enforce(LimitedRequest request, List<ConfiguredLimit> limits, EvaluationContext context,
			Duration maxWait, Reservation held) {
		return untilAdmitted(request, limits, maxWait, held, (attempt) -> decided(attempt, limits, context, held));
	}

	/**
	 * A call of a method of one value ({@link ReturnType.Kind#SINGLE}) with limits charged by outcome: admitted as
	 * {@link ChargeByOutcome} admits, the method's publisher subscribed, then charged by its outcome before its value
	 * or error goes on.
	 */
	@SuppressWarnings("NullAway") // signal.getThrowable() of a signal that isOnError()
	public Mono<Object> invokeChargedByOutcome(LimitedCall call, Duration maxWait) {
		OutcomeCharger charger = this.waits.enforcer().byOutcome();
		List<ConfiguredLimit> peeked = ChargeByOutcome.byOutcome(call.limits(), true, false);
		List<ConfiguredLimit> reserved = ChargeByOutcome.byOutcome(call.limits(), true, true);
		List<ConfiguredLimit> before = ChargeByOutcome.byOutcome(call.limits(), false);
		Reservation reservation = new Reservation();
		Mono<List<LimitDecision>> admission = untilAdmitted(call.request(), call.limits(), maxWait, reservation, (attempt) -> Mono
			// the reads block: off any event loop
			.fromCallable(() -> peeked.isEmpty() ? List.<LimitDecision>of()
					: charger.peekAdmission(attempt, peeked, call.context()))
			.subscribeOn(Schedulers.boundedElastic())
			.flatMap((read) -> reserved(attempt, reserved, call.context(), reservation).thenReturn(read))
			.flatMap((read) -> before.isEmpty() ? Mono.just(read)
					: decided(attempt, before, call.context(), reservation).thenReturn(read))
			// not admitted: what was reserved is given back, off the event loop, before the next attempt or the 429
			.onErrorResume((ex) -> Mono.fromRunnable(() -> charger.release(attempt, reservation))
				.subscribeOn(Schedulers.boundedElastic())
				.then(Mono.error(ex)))
			.doOnNext((read) -> charger.admitted(attempt)));
		ReturnType type = ReturnType.of(call.method().getReturnType());
		return admission.flatMap((read) -> Mono
			.defer(() -> Mono.from(ReactorCallAdapter.proceed(call.invocation(), type)))
			.materialize()
			.flatMap((signal) -> Mono
				.fromRunnable(() -> ChargeByOutcome.charge(charger, call, signal.get(), signal.getThrowable(), read,
						reservation))
				.subscribeOn(Schedulers.boundedElastic())
				.publishOn(this.continuation.get())
				.then(signal.isOnError() ? Mono.error(signal.getThrowable()) : Mono.justOrEmpty(signal.get())))
			// a subscriber that cancels before the outcome: nothing counts as charged, a provisional cost stands
			.doOnCancel(() -> Schedulers.boundedElastic()
				.schedule(() -> charger.settle(call.request(), reservation,
						(limit) -> (limit.settleCost() != null) ? limit.request().cost() : 0))));
	}

	/** The reserved limits decided, what they take kept in {@code reservation}; nothing when there are none. */
	private Mono<Void> reserved(LimitedRequest attempt, List<ConfiguredLimit> limits, EvaluationContext context,
			Reservation reservation) {
		if (limits.isEmpty()) {
			return Mono.empty();
		}
		return Mono.defer(() -> subscribed(
				this.waits.enforcer().reserve(attempt, limits, context, reservation).toCompletableFuture()));
	}

	/**
	 * {@code attempt} until it admits, pausing after each denial as {@link PermitWait} says, up to {@code maxWait};
	 * a subscriber that cancels during a pause ends it. The subscriber's observation (WebFlux's request's, or a
	 * caller's) is in the Reactor context, where no thread-local holds it: the decisions' observations go under it.
	 */
	private <T> Mono<T> untilAdmitted(LimitedRequest request, List<ConfiguredLimit> limits, Duration maxWait,
			Reservation held, Function<LimitedRequest, Mono<T>> attempt) {
		DecisionObservations observations = this.waits.enforcer().observations();
		return Mono.deferContextual((subscriber) -> {
			observations.parentFound(request,
					subscriber.getOrDefault(DecisionObservations.REACTOR_CONTEXT_KEY, null));
			PermitWait wait = this.waits.begin(request, limits, maxWait, held);
			return attempt(wait, wait.firstAttempt(), attempt).doOnSuccess((admitted) -> wait.done(null))
				.doOnError(wait::done)
				.doOnCancel(() -> wait.done(new CancellationException()));
		});
	}

	private static <T> Mono<T> attempt(PermitWait wait, LimitedRequest current,
			Function<LimitedRequest, Mono<T>> attempt) {
		return Mono.defer(() -> attempt.apply(current)).onErrorResume(RateLimitExceededException.class, (denied) -> {
			CompletableFuture<Boolean> pause = wait.pause(denied);
			if (pause == null) {
				return Mono.error(denied);
			}
			return Mono.fromFuture(pause)
				.flatMap((retry) -> retry ? attempt(wait, wait.nextAttempt(), attempt) : Mono.error(denied));
		});
	}

	private Mono<Void> decided(LimitedRequest attempt, List<ConfiguredLimit> limits, EvaluationContext context,
			Reservation held) {
		return Mono
			.defer(() -> subscribed(this.waits.enforcer().enforce(attempt, limits, context, held).toCompletableFuture()));
	}

	/**
	 * The enforcer's stage as a {@code Mono}, going on where {@link #continuation} says once Redis has answered. A
	 * subscriber that cancels (a client gone) cancels the stage: the decision goes on in Redis, is counted as any
	 * and gives back the leases it takes once made ({@code RateLimitEnforcer.enforce}), and its outcome reaches no one.
	 * Left uncancelled, a stage that fails after its subscriber went away (a denial, a 503) would be an error Reactor
	 * drops, logged at ERROR ("Operator called default onErrorDropped").
	 */
	private Mono<Void> subscribed(CompletableFuture<Void> decision) {
		Mono<Void> decided = Mono.fromFuture(decision);
		return decision.isDone() ? decided : decided.publishOn(this.continuation.get());
	}

}
