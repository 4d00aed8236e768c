package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.Plans;

import org.springframework.expression.EvaluationContext;

/**
 * Decides one request against the limits that apply to it, for the filters and the advisor alike, on Spring MVC and
 * WebFlux.
 *
 * <p>
 * Limits whose client keys are equal share a Redis hash tag and are decided in one script call, all or nothing.
 * Limits with different keys (say one by IP, one by user) are decided one key after the other; a denial stops the
 * sequence, but limits already decided for an earlier key keep their consumption. When Redis fails, the failure
 * policy of the limits concerned applies: any {@code fail-closed} limit makes it a 503; otherwise {@code fail-local}
 * limits are decided by this instance's {@link LocalFallback} and {@code fail-open} limits are skipped. While the
 * fallback's circuit breaker is open, key groups with a {@code fail-local} limit and no {@code fail-closed} one are
 * decided so without asking Redis.
 *
 * <p>
 * One request has one deadline, {@code ratelimit.redis.timeout} from its first decision: however many keys, and
 * whether a filter, the advisor or both decide, and for a call charged by outcome its read and its charge
 * together. When it is due, the Redis client judges whether Redis or the busy application made it late
 * ({@link Timeouts}: with Lettuce or Jedis, {@code FairDeadlines}). Once it has passed, the remaining limits follow
 * their failure policy without asking Redis. Nothing here blocks: a decision is a
 * {@link CompletionStage} that completes when Redis answers or the deadline passes (Spring MVC waits for it, WebFlux
 * subscribes to it).
 *
 * <p>
 * A key group that this instance saw denied a moment ago is denied again without Redis while that denial stands
 * ({@link RememberedDenials}).
 */
public final class RateLimitEnforcer {

	private final RateLimiter limiter;

	private final long timeoutNanos;

	private final ClientKeyResolver clientKeys;

	private final RateLimitResponses responses;

	private final RateLimitEvents events;

	private final Timeouts timeouts;

	private final LocalFallback fallback;

	private final FailurePolicies failurePolicies;

	private final Plans plans;

	private final ShadowDenials shadowDenials;

	private final RememberedDenials denials;

	public RateLimitEnforcer(RateLimiter limiter, Duration timeout, ClientKeyResolver clientKeys, RateLimitResponses responses,
			RateLimitEvents events, Timeouts timeouts, LocalFallback fallback, Plans plans,
			ShadowDenials shadowDenials, RememberedDenials denials) {
		this.limiter = limiter;
		this.denials = denials;
		this.plans = plans;
		this.shadowDenials = shadowDenials;
		this.fallback = fallback;
		this.failurePolicies = new FailurePolicies(fallback, events, responses);
		this.timeoutNanos = timeout.toNanos();
		this.clientKeys = clientKeys;
		this.responses = responses;
		this.events = events;
		this.timeouts = timeouts;
	}

	public ClientKeyResolver clientKeys() {
		return this.clientKeys;
	}

	/**
	 * Decides the request and, when it goes ahead, adds the rate-limit fields to its response. Never blocks.
	 * @return a stage that completes when the request may go ahead, or completes exceptionally with a
	 * {@link RateLimitException} when it is denied (429), Redis fails a fail-closed limit (503), or a key is missing
	 * and rejected (400)
	 */
	public CompletionStage<Void> enforce(LimitedRequest request, List<ConfiguredLimit> configured,
			EvaluationContext context) {
		return enforce(request, configured, context, Runnable::run);
	}

	/**
	 * {@link #enforce}, with what follows Redis' answer (the decision applied, the 429 built, the fields added) run
	 * by {@code continuation}.
	 */
	private CompletionStage<Void> enforce(LimitedRequest request, List<ConfiguredLimit> configured,
			EvaluationContext context, Executor continuation) {
		Map<String, List<ConfiguredLimit>> byKey;
		try {
			byKey = this.clientKeys.groupByKey(shapedByPlan(configured, context), request, context, false);
		}
		catch (RateLimitException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		long deadline = RequestDeadline.of(request, this.timeoutNanos);
		List<LimitDecision> applied = new ArrayList<>();
		CompletableFuture<Void> sequence = CompletableFuture.completedFuture(null);
		for (Map.Entry<String, List<ConfiguredLimit>> group : byKey.entrySet()) {
			sequence = sequence.thenCompose((previous) -> decide(request, group.getKey(), group.getValue(), deadline,
					applied, continuation));
		}
		return sequence.thenRun(() -> {
			if (!applied.isEmpty()) {
				this.responses.headers().addTo(request, applied);
			}
		});
	}

	/** The limits as the request's plan shapes them (unchanged when none is planned). */
	private List<ConfiguredLimit> shapedByPlan(List<ConfiguredLimit> limits, EvaluationContext context) {
		if (limits.stream().noneMatch(ConfiguredLimit::planned)) {
			return limits;
		}
		String plan = this.plans.select(context);
		return limits.stream().map((limit) -> limit.forPlan(plan)).toList();
	}

	/**
	 * The decisions whose fields the response carries: not those of shadow limits, which a client would slow down
	 * for although they refuse nothing.
	 */
	private static List<LimitDecision> enforced(RateLimitDecision decision) {
		return decision.decisions().stream().filter((limit) -> !limit.limit().shadow()).toList();
	}

	/**
	 * {@link #enforce} for a thread that may wait (Spring MVC's): returns when the request may go ahead.
	 * @throws RateLimitException as {@link #enforce} completes
	 */
	public void enforceAndWait(LimitedRequest request, List<ConfiguredLimit> limits, EvaluationContext context) {
		WaitingThread waiting = new WaitingThread();
		CompletableFuture<Void> decision = enforce(request, limits, context, waiting).toCompletableFuture();
		try {
			// The stage completes by the deadline on its own; waiting has no timeout of its own to add.
			waiting.runUntil(decision);
			decision.get();
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException(ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
	}

	/**
	 * Admission of a call charged by outcome: each limit must have room for the call's cost now, read without
	 * consuming ({@link RateLimiter#peek}, one read per limit). Blocks the calling thread for the reads. When Redis
	 * fails (or the fail-local breaker is open), the failure policy applies as for any request: a fail-closed limit
	 * refuses the call, a fail-local one is read from this instance's local state, a fail-open one admits it.
	 * @return the enforced limits' states as read, for the response's fields when the call is not charged
	 * @throws RateLimitException the 429 when a limit has no room, the 503 of a fail-closed limit, the 400 of a
	 * missing key
	 */
	public List<LimitDecision> peekAdmission(LimitedRequest request, List<ConfiguredLimit> configured,
			EvaluationContext context) {
		List<LimitDecision> peeked = new ArrayList<>();
		long deadline = RequestDeadline.of(request, this.timeoutNanos);
		for (ConfiguredLimit limit : shapedByPlan(configured, context)) {
			String clientKey = this.clientKeys.resolve(limit, request, context);
			LimitDecision state = null;
			if (!(LocalFallback.spareRedisFor(List.of(limit)) && this.fallback.skipRedis())) {
				state = askRedis(() -> this.limiter.peekAsync(clientKey, limit.definition()), deadline);
			}
			if (state != null) {
				peeked.add(state);
			}
			else {
				RateLimitDecision local = this.failurePolicies.apply(request, clientKey, List.of(limit),
						FailurePolicies.Moment.ADMISSION);
				if (local != null) {
					peeked.addAll(local.decisions());
				}
			}
		}
		if (peeked.isEmpty()) {
			return List.of();
		}
		RateLimitDecision admission = new RateLimitDecision(peeked);
		List<LimitDecision> fields = enforced(admission);
		if (!admission.allowed()) {
			this.events.decided(admission);
			throw this.responses.exceeded(request, fields, admission);
		}
		return fields;
	}

	/**
	 * Ends the admission of a call charged by outcome ({@code attempt} admitted): what is left of the request's
	 * deadline is kept for the charge after the call, so that admission and charge together wait at most one
	 * {@code ratelimit.redis.timeout} for Redis, while the time the call itself takes uses none of it.
	 */
	public void admitted(LimitedRequest attempt) {
		RequestDeadline.keepForCharge(attempt, this.timeoutNanos);
	}

	/**
	 * The charge of a call charged by outcome, after it ran: one decision per client key, as for any request, that
	 * consumes when the limits still have room and records nothing otherwise (other calls in flight took it); never
	 * an error, the call has run. It waits for Redis at most what {@link #admitted admission} left of the request's
	 * deadline; once that is spent (or while Redis fails), fail-local limits are charged locally and the others not
	 * at all. Its fields, and {@code uncharged}'s (the states admission read), go on the response. Blocks the calling
	 * thread.
	 */
	public void charge(LimitedRequest request, List<ConfiguredLimit> configured, EvaluationContext context,
			List<LimitDecision> uncharged) {
		long deadline = RequestDeadline.forCharge(request, this.timeoutNanos);
		List<LimitDecision> fields = new ArrayList<>(uncharged);
		// admission resolved the same keys a moment ago; an expression that changed its mind charges nothing
		Map<String, List<ConfiguredLimit>> byKey = this.clientKeys.groupByKey(shapedByPlan(configured, context),
				request, context, true);
		for (Map.Entry<String, List<ConfiguredLimit>> group : byKey.entrySet()) {
			RateLimitDecision decision = null;
			if (!(LocalFallback.spareRedisFor(group.getValue()) && this.fallback.skipRedis())) {
				decision = askRedis(
						() -> this.limiter.tryAcquireAsync(group.getKey(), ConfiguredLimit.sharedBudgets(group.getValue(), ConfiguredLimit::definition)),
						deadline);
			}
			if (decision != null) {
				this.events.decided(decision);
			}
			else {
				decision = this.failurePolicies.apply(request, group.getKey(), group.getValue(),
						FailurePolicies.Moment.CHARGE);
			}
			if (decision != null) {
				fields.addAll(enforced(decision));
			}
		}
		if (!fields.isEmpty()) {
			this.responses.headers().addTo(request, fields);
		}
	}

	/**
	 * A call to Redis for {@link #peekAdmission} and {@link #charge}, waited for on this thread until
	 * {@code deadline} at most: timed and counted as {@link #bounded} counts its calls, moving the fail-local breaker
	 * either way.
	 * @return the answer, or {@code null} when Redis failed or the deadline passed (the caller applies the failure
	 * policy)
	 */
	private <T> T askRedis(Supplier<CompletionStage<T>> call, long deadline) {
		try {
			// completes by the deadline on its own: no timeout of this thread's to add
			T answer = bounded(call, deadline).get();
			if (this.fallback.redisAnswered()) {
				this.events.redisAnsweredAgain();
			}
			return answer;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
		catch (ExecutionException ex) {
			RuntimeException cause = unwrap(ex.getCause());
			this.events.redisFailed(cause);
			this.fallback.redisFailed();
			return null;
		}
	}

	/** The limits of one client key: their decision added to {@code applied}, or their failure policy. */
	private CompletableFuture<Void> decide(LimitedRequest request, String clientKey, List<ConfiguredLimit> limits,
			long deadline, List<LimitDecision> applied, Executor continuation) {
		List<LimitDefinition> definitions = ConfiguredLimit.sharedBudgets(limits, ConfiguredLimit::definition);
		RateLimitDecision remembered = this.denials.recall(clientKey, definitions);
		if (remembered != null) {
			this.events.deniedFromMemory();
			return runNow(() -> apply(request, remembered, applied));
		}
		if (LocalFallback.spareRedisFor(limits) && this.fallback.skipRedis()) {
			return runNow(() -> decideLocally(request, clientKey, limits, applied));
		}
		long sentAt = this.denials.now();
		CompletableFuture<RateLimitDecision> answer = bounded(() -> this.limiter.tryAcquireAsync(clientKey, definitions),
				deadline);
		return answer.handleAsync((decision, failure) -> {
			if (failure != null) {
				RuntimeException cause = unwrap(failure);
				this.events.redisFailed(cause);
				this.fallback.redisFailed();
				decideLocally(request, clientKey, limits, applied);
				return null;
			}
			if (this.fallback.redisAnswered()) {
				this.events.redisAnsweredAgain();
			}
			if (decision.allowed()) {
				this.denials.forget(clientKey);
			}
			else {
				this.denials.remember(clientKey, definitions, decision, sentAt);
			}
			apply(request, decision, applied);
			return null;
		}, continuation);
	}

	/** {@code action} run on this thread, as a stage: completed, or failed with what it throws. */
	private static CompletableFuture<Void> runNow(Runnable action) {
		return CompletableFuture.runAsync(action, Runnable::run);
	}

	/**
	 * A decision of Redis, or remembered from it: its fields for the response, its metrics and shadow denials.
	 * @throws RateLimitException the 429 when it denies
	 */
	private void apply(LimitedRequest request, RateLimitDecision decision, List<LimitDecision> applied) {
		applied.addAll(enforced(decision));
		this.events.decided(decision);
		this.shadowDenials.record(decision);
		if (!decision.allowed()) {
			throw this.responses.exceeded(request, applied, decision);
		}
	}

	/**
	 * The limits of one client key that Redis did not decide, as their failure policy says ({@link FailurePolicies}):
	 * the local decision's fields added to {@code applied}.
	 * @throws RateLimitException the 503 of a fail-closed limit, or the 429 when the local decision denies
	 */
	private void decideLocally(LimitedRequest request, String clientKey, List<ConfiguredLimit> limits,
			List<LimitDecision> applied) {
		RateLimitDecision local = this.failurePolicies.apply(request, clientKey, limits, FailurePolicies.Moment.DECISION);
		if (local == null) {
			return;
		}
		applied.addAll(enforced(local));
		this.shadowDenials.record(local);
		if (!local.allowed()) {
			throw this.responses.exceeded(request, applied, local);
		}
	}

	/**
	 * The answer of a call to Redis (a decision, a read), or a failure when Redis fails or has not answered by
	 * {@code deadline}. The limiter's own stage is cancelled on timeout, so a client that has not sent it yet can drop
	 * it.
	 */
	private <T> CompletableFuture<T> bounded(Supplier<CompletionStage<T>> call, long deadline) {
		long remaining = deadline - System.nanoTime();
		if (remaining <= 0) {
			return CompletableFuture
				.failedFuture(new DeadlineExceededException("no time left of ratelimit.redis.timeout for this request"));
		}
		long start = System.nanoTime();
		CompletableFuture<T> decision;
		try {
			decision = call.get().toCompletableFuture();
		}
		catch (RuntimeException ex) {
			this.events.redisCall(System.nanoTime() - start, "failure");
			return CompletableFuture.failedFuture(ex);
		}
		if (decision.isDone()) {
			// decided already (the in-memory store decides on the calling thread, and a fast Redis may have answered
			// already): no deadline to watch
			this.events.redisCall(System.nanoTime() - start,
					decision.isCompletedExceptionally() ? "failure" : "success");
			return decision;
		}
		CompletableFuture<T> bounded = new CompletableFuture<>();
		// The first of the answer and the timeout settles the call; it is timed before the request goes on, so that
		// the metrics have counted a call by the time its response leaves.
		AtomicBoolean settled = new AtomicBoolean();
		Runnable cancelTimeout = this.timeouts.schedule(() -> {
			if (settled.compareAndSet(false, true)) {
				this.events.redisCall(System.nanoTime() - start, "timeout");
				bounded.completeExceptionally(new TimeoutException());
				decision.cancel(false);
			}
		}, remaining);
		decision.whenComplete((result, failure) -> {
			cancelTimeout.run();
			if (settled.compareAndSet(false, true)) {
				this.events.redisCall(System.nanoTime() - start, (failure != null) ? "failure" : "success");
				if (failure != null) {
					bounded.completeExceptionally(failure);
				}
				else {
					bounded.complete(result);
				}
			}
		});
		return bounded;
	}

	private static RuntimeException unwrap(Throwable failure) {
		Throwable cause = PermitWait.cause(failure);
		if (cause instanceof TimeoutException) {
			return new DeadlineExceededException("Redis did not decide within ratelimit.redis.timeout");
		}
		return (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
	}

	/** The request's time in the limiter ran out. */
	static final class DeadlineExceededException extends RuntimeException {

		DeadlineExceededException(String message) {
			super(message, null, false, false);
		}

	}

}
