package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.PlanSelector;

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
 * together ({@link RedisCaller}). Once it has passed, the remaining limits follow their failure policy without asking
 * Redis ({@link DecisionApplier}). Nothing here blocks: a decision is a
 * {@link CompletionStage} that completes when Redis answers or the deadline passes (Spring MVC waits for it, WebFlux
 * subscribes to it).
 *
 * <p>
 * A key group that this instance saw denied a moment ago is denied again without Redis while that denial stands
 * ({@link DenialCache}).
 */
public final class RateLimitEnforcer {

	private final RedisCaller redis;

	private final DecisionApplier answers;

	private final ClientKeyResolver clientKeys;

	private final PlanSelector plans;

	private final DenialCache denials;

	/**
	 * @param redis the calls to Redis, each bounded by its request's deadline
	 * @param answers what the decisions make of the request
	 * @param clientKeys the limits' client keys
	 * @param plans the plans that shape planned limits
	 * @param denials denials answered without Redis while they stand
	 */
	public RateLimitEnforcer(RedisCaller redis, DecisionApplier answers, ClientKeyResolver clientKeys, PlanSelector plans,
			DenialCache denials) {
		this.redis = redis;
		this.answers = answers;
		this.clientKeys = clientKeys;
		this.plans = plans;
		this.denials = denials;
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
		Sequence decided = new Sequence(request, this.redis.deadline(request), new ArrayList<>(), continuation);
		CompletableFuture<Void> sequence = CompletableFuture.completedFuture(null);
		for (Map.Entry<String, List<ConfiguredLimit>> group : byKey.entrySet()) {
			sequence = sequence.thenCompose((previous) -> decide(decided, group.getKey(), group.getValue()));
		}
		return sequence.thenRun(() -> this.answers.addFields(request, decided.applied()));
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
		long deadline = this.redis.deadline(request);
		for (ConfiguredLimit limit : shapedByPlan(configured, context)) {
			String clientKey = this.clientKeys.resolve(limit, request, context);
			LimitDecision state = this.redis.spared(List.of(limit)) ? null
					: this.redis.peekAndWait(clientKey, limit.request(), deadline);
			if (state != null) {
				peeked.add(state);
				continue;
			}
			RateLimitDecision local = this.answers.notDecided(request, clientKey, List.of(limit),
					FailurePolicyHandler.Moment.ADMISSION);
			if (local != null) {
				peeked.addAll(local.decisions());
			}
		}
		if (peeked.isEmpty()) {
			return List.of();
		}
		RateLimitDecision admission = new RateLimitDecision(peeked);
		List<LimitDecision> fields = DecisionApplier.enforced(admission);
		this.answers.admit(request, admission, fields);
		return fields;
	}

	/**
	 * Ends the admission of a call charged by outcome ({@code attempt} admitted): what is left of the request's
	 * deadline is kept for the charge after the call, so that admission and charge together wait at most one
	 * {@code ratelimit.redis.timeout} for Redis, while the time the call itself takes uses none of it.
	 */
	public void admitted(LimitedRequest attempt) {
		this.redis.keepForCharge(attempt);
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
		long deadline = this.redis.chargeDeadline(request);
		List<LimitDecision> fields = new ArrayList<>(uncharged);
		// admission resolved the same keys a moment ago; an expression that changed its mind charges nothing
		Map<String, List<ConfiguredLimit>> byKey = this.clientKeys.groupByKey(shapedByPlan(configured, context),
				request, context, true);
		for (Map.Entry<String, List<ConfiguredLimit>> group : byKey.entrySet()) {
			RateLimitDecision decision = this.redis.spared(group.getValue()) ? null
					: this.redis.decideAndWait(group.getKey(),
							ConfiguredLimit.sharedBudgets(group.getValue(), ConfiguredLimit::request), deadline);
			if (decision != null) {
				this.answers.decided(decision);
			}
			else {
				decision = this.answers.notDecided(request, group.getKey(), group.getValue(),
						FailurePolicyHandler.Moment.CHARGE);
			}
			if (decision != null) {
				fields.addAll(DecisionApplier.enforced(decision));
			}
		}
		this.answers.addFields(request, fields);
	}

	/** The limits of one client key: their decision added to the sequence's, or their failure policy. */
	private CompletableFuture<Void> decide(Sequence sequence, String clientKey, List<ConfiguredLimit> limits) {
		LimitedRequest request = sequence.request();
		List<LimitRequest> requests = ConfiguredLimit.sharedBudgets(limits, ConfiguredLimit::request);
		RateLimitDecision remembered = this.denials.recall(clientKey, requests);
		if (remembered != null) {
			this.answers.deniedFromMemory();
			return runNow(() -> this.answers.apply(request, remembered, sequence.applied()));
		}
		if (this.redis.spared(limits)) {
			return runNow(() -> this.answers.decideLocally(request, clientKey, limits, sequence.applied()));
		}
		long sentAt = this.denials.now();
		return this.redis.decide(clientKey, requests, sequence.deadline()).handleAsync((decision, failure) -> {
			if (failure != null) {
				this.redis.failed(failure);
				this.answers.decideLocally(request, clientKey, limits, sequence.applied());
				return null;
			}
			this.redis.answered();
			if (decision.allowed()) {
				this.denials.forget(clientKey);
			}
			else {
				this.denials.remember(clientKey, requests, decision, sentAt);
			}
			this.answers.apply(request, decision, sequence.applied());
			return null;
		}, sequence.continuation());
	}

	/** {@code action} run on this thread, as a stage: completed, or failed with what it throws. */
	private static CompletableFuture<Void> runNow(Runnable action) {
		return CompletableFuture.runAsync(action, Runnable::run);
	}

	/**
	 * One request's decisions, one client key after the other.
	 * @param deadline the request's deadline ({@link System#nanoTime()})
	 * @param applied the decisions whose fields the response carries, so far
	 * @param continuation runs what follows Redis' answer
	 */
	private record Sequence(LimitedRequest request, long deadline, List<LimitDecision> applied, Executor continuation) {
	}

}
