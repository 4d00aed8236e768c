package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.PlanSelector;
import org.jspecify.annotations.Nullable;

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

	/** The leases the decisions take, renewed and given back. */
	private final LeaseCalls leases;

	private final DecisionApplier answers;

	private final ClientKeyResolver clientKeys;

	private final DenialCache denials;

	private final OutcomeCharger byOutcome;

	private final DecisionObservations observations;

	/** This instance as its lease ids name it ({@link Leases#holder()}). */
	private final String holder = Leases.holder();

	/**
	 * @param redis the calls to Redis, each bounded by its request's deadline
	 * @param answers what the decisions make of the request
	 * @param clientKeys the limits' client keys
	 * @param denials denials answered without Redis while they stand
	 * @param observations the decisions' observations ({@link DecisionObservations#NONE} without a registry)
	 */
	public RateLimitEnforcer(RedisCaller redis, DecisionApplier answers, ClientKeyResolver clientKeys,
			DenialCache denials, DecisionObservations observations) {
		this.redis = redis;
		this.leases = redis.leases();
		this.answers = answers;
		this.clientKeys = clientKeys;
		this.denials = denials;
		this.observations = observations;
		this.byOutcome = new OutcomeCharger(redis, answers, clientKeys, observations);
	}

	/**
	 * Every client's state was reset ({@link StateReset}): the denials this instance remembers and its fail-local
	 * state no longer hold.
	 */
	void forgetLocalState() {
		this.denials.forgetAll();
		this.answers.resetLocal();
	}

	/** The decisions' observations, for callers that find a request's observation elsewhere (WebFlux). */
	public DecisionObservations observations() {
		return this.observations;
	}

	public ClientKeyResolver clientKeys() {
		return this.clientKeys;
	}

	/** The admission and charge of calls charged by outcome, with this enforcer's Redis, deadlines and policies. */
	public OutcomeCharger byOutcome() {
		return this.byOutcome;
	}

	/**
	 * Decides the request and, when it goes ahead, adds the rate-limit fields to its response. Never blocks. The
	 * leases its concurrency limits take are kept in {@code held}, which the caller gives back when the call ends
	 * ({@link #release}); a request that does not go ahead has given back what it took by the time the stage fails.
	 * A caller that goes away cancels the stage: the decision goes on in Redis (counted and remembered as any), and
	 * the leases it takes are given back once it has been made, since the caller is no longer there to.
	 * @return a stage that completes when the request may go ahead, or completes exceptionally with a
	 * {@link RateLimitException} when it is denied (429), Redis fails a fail-closed limit (503), or a key is missing
	 * and rejected (400)
	 */
	public CompletionStage<Void> enforce(LimitedRequest request, List<ConfiguredLimit> configured,
			EvaluationContext context, Reservation held) {
		return enforce(request, configured, context, Runnable::run, held, false);
	}

	/**
	 * Gives back the leases {@code held} holds, once its call has ended. Never blocks and never waits for the
	 * response: the release is sent and left to complete with its own {@code ratelimit.redis.timeout}; a lease that
	 * Redis does not take back expires after its lease time.
	 */
	public void release(Reservation held) {
		this.leases.release(held);
	}

	/**
	 * {@link #enforce}, keeping in {@code reservation} what the limits took, to be settled after the call
	 * ({@link OutcomeCharger#settle}); when a later client key denies, what earlier ones took is still held, for the
	 * caller to {@link OutcomeCharger#release} (leases excepted: those are given back at once, as by {@link #enforce}).
	 */
	public CompletionStage<Void> reserve(LimitedRequest request, List<ConfiguredLimit> configured,
			EvaluationContext context, Reservation reservation) {
		return enforce(request, configured, context, Runnable::run, reservation, true);
	}

	/**
	 * {@link #reserve} for a thread that may wait.
	 * @throws RateLimitException as {@link #enforce} completes
	 */
	public void reserveAndWait(LimitedRequest request, List<ConfiguredLimit> limits, EvaluationContext context,
			Reservation reservation) {
		WaitingThread waiting = new WaitingThread();
		await(waiting, enforce(request, limits, context, waiting, reservation, true).toCompletableFuture());
	}

	/**
	 * {@link #enforce}, with what follows Redis' answer (the decision applied, the 429 built, the fields added) run
	 * by {@code continuation}.
	 */
	private CompletionStage<Void> enforce(LimitedRequest request, List<ConfiguredLimit> configured,
			EvaluationContext context, Executor continuation, Reservation reservation, boolean reserveUnits) {
		Map<String, List<ConfiguredLimit>> byKey;
		try {
			byKey = this.clientKeys.groupByKey(PlanSelector.forRequest(configured, context), request, context, false);
		}
		catch (RateLimitException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		DecisionSequence decided = new DecisionSequence(request, this.redis.deadline(request), new ArrayList<>(),
				continuation, reservation, reserveUnits, Leases.idFor(configured, this.holder), new ArrayList<>(),
				this.observations.parent(request));
		CompletableFuture<Void> sequence = CompletableFuture.completedFuture(null);
		for (Map.Entry<String, List<ConfiguredLimit>> group : byKey.entrySet()) {
			sequence = sequence.thenCompose((previous) -> decide(decided, group.getKey(), group.getValue()));
		}
		CompletableFuture<Void> answered = sequence.thenRun(() -> this.answers.addFields(request, decided.applied()));
		if (decided.lease() == null) {
			return answered;
		}
		CompletableFuture<Void> stage = new CompletableFuture<>();
		answered.whenComplete((admitted, failure) -> {
			if (failure != null) {
				// a request that does not go ahead gives back the leases it took at earlier client keys, at once
				decided.giveBack(this.leases);
				stage.completeExceptionally(failure);
			}
			else if (!stage.complete(null)) {
				// cancelled by its caller, gone before Redis answered: no one is left to give back what it took
				decided.giveBack(this.leases);
			}
		});
		return stage;
	}

	/**
	 * {@link #enforce} for a thread that may wait (Spring MVC's): returns when the request may go ahead, its leases in
	 * {@code held}.
	 * @throws RateLimitException as {@link #enforce} completes
	 */
	public void enforceAndWait(LimitedRequest request, List<ConfiguredLimit> limits, EvaluationContext context,
			Reservation held) {
		WaitingThread waiting = new WaitingThread();
		await(waiting, enforce(request, limits, context, waiting, held, false).toCompletableFuture());
	}

	private static void await(WaitingThread waiting, CompletableFuture<Void> decision) {
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
	 * The limits of one client key: their decision added to the sequence's, or their failure policy. One observation
	 * for them all, as one script call decides them.
	 */
	private CompletableFuture<Void> decide(DecisionSequence sequence, String clientKey, List<ConfiguredLimit> limits) {
		LimitedRequest request = sequence.request();
		List<LimitRequest> requests = Leases.withLease(ConfiguredLimit.sharedBudgets(limits, ConfiguredLimit::request),
				sequence.lease());
		DecisionObservations.Observed observed = this.observations.decision(sequence.parent(), limits);
		RateLimitDecision recalled = this.denials.recall(clientKey, requests);
		// a waiting call behind another of its line waits in it without asking Redis (PermitLines)
		RateLimitDecision remembered = (recalled != null) ? recalled : sequence.reservation().waits().behind(clientKey, requests);
		if (remembered != null) {
			observed.stop(Outcome.REMEMBERED_DENIED);
			this.answers.deniedFromMemory();
			sequence.reservation().waits().denied(clientKey, requests, remembered, false);
			return runNow(() -> this.answers.apply(request, remembered, sequence.applied()));
		}
		if (this.redis.spared(limits)) {
			return runNow(() -> sequence.holdLocal(clientKey, limits, decideLocally(sequence, clientKey, limits, observed),
					this.leases));
		}
		long sentAt = this.denials.now();
		CompletableFuture<RateLimitDecision> call;
		try (var scope = observed.openScope()) {
			call = this.redis.decide(clientKey, requests, sequence.deadline());
		}
		return call.handleAsync((decision, failure) -> {
			if (failure != null) {
				this.redis.failed(failure);
				observed.error(failure);
				// the acquire may have run in Redis all the same: its lease is given back with the others (and not
				// renewed: the call may not hold it)
				sequence.holdLease(Leases.of(clientKey, requests, false), null);
				sequence.holdLocal(clientKey, limits, decideLocally(sequence, clientKey, limits, observed),
						this.leases);
				return null;
			}
			this.redis.answered();
			observed.stop(Outcome.of(decision, false));
			if (decision.allowed()) {
				this.denials.forget(clientKey);
				if (sequence.reserveUnits()) {
					sequence.reservation().hold(clientKey, limits, decision, false);
				}
				sequence.holdLease(Leases.taken(clientKey, decision, false), this.leases);
				sequence.reservation().waits().admitted(clientKey, decision);
			}
			else {
				this.denials.remember(clientKey, requests, decision, sentAt);
				sequence.reservation().waits().denied(clientKey, requests, decision, true);
			}
			this.answers.apply(request, decision, sequence.applied());
			return null;
		}, sequence.continuation());
	}

	/**
	 * The failure policies of limits that Redis did not decide, their outcome on {@code observed}: a fail-closed
	 * limit's 503, this instance's decision, or none (fail-open).
	 */
	private @Nullable RateLimitDecision decideLocally(DecisionSequence sequence, String clientKey,
			List<ConfiguredLimit> limits, DecisionObservations.Observed observed) {
		return Outcome.ofPolicies(observed, () -> this.answers.decideLocally(sequence.request(), clientKey, limits,
				sequence.applied(), sequence.lease()));
	}

	/** {@code action} run on this thread, as a stage: completed, or failed with what it throws. */
	private static CompletableFuture<Void> runNow(Runnable action) {
		return CompletableFuture.runAsync(action, Runnable::run);
	}

}
