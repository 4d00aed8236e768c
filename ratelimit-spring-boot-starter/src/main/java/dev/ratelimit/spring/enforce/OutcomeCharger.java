package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.PlanSelector;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.expression.EvaluationContext;

/**
 * The Redis side of calls charged by outcome ({@code @RateLimited(chargeOn, chargeWhen, chargeOnStatus)}): their
 * admission, read without consuming, and their charge after the call, with the request's one deadline and the
 * limits' failure policies as {@link RateLimitEnforcer} applies them. What a call's outcome charges is the caller's
 * ({@code ChargeByOutcome}); calls in flight at once all read the room before any is charged, so they can overshoot
 * a limit by at most their number.
 */
public final class OutcomeCharger {

	private static final Log logger = LogFactory.getLog(OutcomeCharger.class);

	private final RedisCaller redis;

	private final DecisionApplier answers;

	private final ClientKeyResolver clientKeys;

	private final DecisionObservations observations;

	OutcomeCharger(RedisCaller redis, DecisionApplier answers, ClientKeyResolver clientKeys,
			DecisionObservations observations) {
		this.redis = redis;
		this.answers = answers;
		this.clientKeys = clientKeys;
		this.observations = observations;
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
		@Nullable Observation parent = this.observations.parent(request);
		for (ConfiguredLimit planned : PlanSelector.forRequest(configured, context)) {
			String clientKey = this.clientKeys.resolve(planned, request, context);
			ConfiguredLimit limit = planned.forClient(clientKey);
			// the admission's read decides it: one observation per read, as per decision
			DecisionObservations.Observed observed = this.observations.decision(parent, List.of(limit));
			LimitDecision state = null;
			if (!this.redis.spared(List.of(limit))) {
				try (Observation.Scope scope = observed.openScope()) {
					state = this.redis.peekAndWait(clientKey, limit.request(), deadline);
				}
			}
			if (state != null) {
				observed.stop(Outcome.of(state, false));
				peeked.add(state);
				continue;
			}
			RateLimitDecision local = Outcome.ofPolicies(observed, () -> this.answers.notDecided(request, clientKey,
					List.of(limit), FailurePolicyHandler.Moment.ADMISSION));
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
	 * Settles what {@code reservation} holds once the call's outcome is known, one settlement per client key: each
	 * held limit's real cost is {@code actual} of it (its own cost to keep the reservation, 0 to give it all back),
	 * charged into debt or given back as docs/ALGORITHMS.md ("Settling a reservation") says. Never an error: it waits
	 * for Redis at most what admission left of the request's deadline, and a settlement Redis does not answer in
	 * time, or a cost out of range, leaves the reservation as it was (a Redis failure is counted and logged as any).
	 * Units this instance's memory reserved while Redis failed are settled there. The call has ended: the leases of
	 * its concurrency limits are given back too, without waiting ({@link RateLimitEnforcer#release}). Blocks the
	 * calling thread for the settlements.
	 */
	public void settle(LimitedRequest request, Reservation reservation, ToLongFunction<ConfiguredLimit> actual) {
		this.redis.leases().release(reservation);
		long deadline = this.redis.chargeDeadline(request);
		for (Reservation.Held held : reservation.held()) {
			List<Settlement> settlements = settlements(held, actual);
			if (settlements.isEmpty()) {
				continue;
			}
			DecisionObservations.Observed observed = this.observations.settlement(request, held.limits());
			if (held.local()) {
				this.redis.settleLocally(held.clientKey(), settlements);
				observed.stop(Outcome.LOCAL);
				continue;
			}
			RateLimitDecision settled;
			try (Observation.Scope scope = observed.openScope()) {
				settled = this.redis.settleAndWait(held.clientKey(), settlements, deadline);
			}
			observed.stop((settled != null) ? Outcome.SETTLED : Outcome.FAILED);
		}
		reservation.clear();
	}

	/**
	 * Gives back everything {@code reservation} holds: the request does not go ahead (a later limit denied it) or its
	 * outcome charges none of its reserved limits. Blocks the calling thread.
	 */
	public void release(LimitedRequest request, Reservation reservation) {
		settle(request, reservation, (limit) -> 0);
	}

	/** The settlements of one client key's held units whose real cost differs from the reserved one. */
	private static List<Settlement> settlements(Reservation.Held held, ToLongFunction<ConfiguredLimit> actual) {
		List<Settlement> settlements = new ArrayList<>();
		for (LimitDecision reserved : held.decision().decisions()) {
			// a shadow limit that denied took nothing; a lease is given back by the release
			if (!reserved.allowed() || reserved.decidedAtMs() < 0 || reserved.request().lease() != null) {
				continue;
			}
			// limits of one name are one budget: its real cost is theirs together
			long cost = held.limits()
				.stream()
				.filter((limit) -> limit.name().equals(reserved.request().name()))
				.mapToLong(actual)
				.sum();
			if (cost == reserved.request().cost()) {
				continue;
			}
			try {
				settlements.add(Settlement.of(reserved, cost));
			}
			catch (IllegalArgumentException ex) {
				logger.warn("Cost " + cost + " of rate limit '" + reserved.request().name()
						+ "' cannot be settled; its reservation stands: " + ex.getMessage());
			}
		}
		return settlements;
	}

	/**
	 * The admission of a request to filter rules charged by outcome ({@code charge-on-status}), which wait for no
	 * permit: {@link #peekAdmission}, then {@link #admitted}.
	 * @return the states as read
	 * @throws RateLimitException as {@link #peekAdmission} throws it
	 */
	public List<LimitDecision> admitRules(LimitedRequest request, List<ConfiguredLimit> rules,
			EvaluationContext context) {
		List<LimitDecision> admission = peekAdmission(request, rules, context);
		admitted(request);
		// now, before the application answers: whatever commits its response, the fields are on it
		this.answers.addFields(request, admission);
		return admission;
	}

	/**
	 * The charge of a request admitted to filter rules charged by outcome, once its response {@code status} is
	 * known: to the rules whose {@code charge-on-status} has it. Never an error. Blocks the calling thread.
	 */
	public void chargeStatus(LimitedRequest request, List<ConfiguredLimit> rules, int status,
			EvaluationContext context) {
		chargeOnly(request, rules.stream().filter((rule) -> rule.chargedOnStatus(status)).toList(), context);
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
	 * The charge of a call charged by outcome, after it ran, to those of {@code byOutcome} whose condition its outcome
	 * matches ({@code charges}), as {@link #charge(LimitedRequest, List, EvaluationContext, List)} charges them; the
	 * others' states as {@code admission} read them go on the response.
	 */
	public void charge(LimitedRequest request, List<ConfiguredLimit> byOutcome, Predicate<ConfiguredLimit> charges,
			EvaluationContext context, List<LimitDecision> admission) {
		List<ConfiguredLimit> charged = byOutcome.stream().filter(charges).toList();
		List<LimitDecision> uncharged = admission.stream()
			.filter((decision) -> charged.stream().noneMatch((limit) -> limit.name().equals(decision.request().name())))
			.toList();
		charge(request, charged, context, uncharged);
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
		List<LimitDecision> fields = new ArrayList<>(uncharged);
		fields.addAll(chargeOnly(request, configured, context));
		this.answers.addFields(request, fields);
	}

	/** {@link #charge(LimitedRequest, List, EvaluationContext, List)} without the fields: returns them. */
	private List<LimitDecision> chargeOnly(LimitedRequest request, List<ConfiguredLimit> configured,
			EvaluationContext context) {
		long deadline = this.redis.chargeDeadline(request);
		List<LimitDecision> fields = new ArrayList<>();
		// admission resolved the same keys a moment ago; an expression that changed its mind charges nothing
		Map<String, List<ConfiguredLimit>> byKey = this.clientKeys.groupByKey(PlanSelector.forRequest(configured, context),
				request, context, true);
		for (Map.Entry<String, List<ConfiguredLimit>> group : byKey.entrySet()) {
			DecisionObservations.Observed observed = this.observations.settlement(request, group.getValue());
			RateLimitDecision decision = null;
			if (!this.redis.spared(group.getValue())) {
				try (Observation.Scope scope = observed.openScope()) {
					decision = this.redis.decideAndWait(group.getKey(),
							ConfiguredLimit.sharedBudgets(group.getValue(), ConfiguredLimit::request), deadline);
				}
			}
			if (decision != null) {
				observed.stop(Outcome.of(decision, false));
				this.answers.decided(decision);
			}
			else {
				decision = Outcome.ofPolicies(observed, () -> this.answers.notDecided(request, group.getKey(),
						group.getValue(), FailurePolicyHandler.Moment.CHARGE));
			}
			if (decision != null) {
				fields.addAll(DecisionApplier.enforced(decision));
			}
		}
		return fields;
	}

}
