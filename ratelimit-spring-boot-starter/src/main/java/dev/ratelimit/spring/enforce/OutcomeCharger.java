package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.PlanSelector;

import org.springframework.expression.EvaluationContext;

/**
 * The Redis side of calls charged by outcome ({@code @RateLimited(chargeOn, chargeWhen, chargeOnStatus)}): their
 * admission, read without consuming, and their charge after the call, with the request's one deadline and the
 * limits' failure policies as {@link RateLimitEnforcer} applies them. What a call's outcome charges is the caller's
 * ({@code ChargeByOutcome}); calls in flight at once all read the room before any is charged, so they can overshoot
 * a limit by at most their number.
 */
public final class OutcomeCharger {

	private final RedisCaller redis;

	private final DecisionApplier answers;

	private final ClientKeyResolver clientKeys;

	private final PlanSelector plans;

	OutcomeCharger(RedisCaller redis, DecisionApplier answers, ClientKeyResolver clientKeys, PlanSelector plans) {
		this.redis = redis;
		this.answers = answers;
		this.clientKeys = clientKeys;
		this.plans = plans;
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
		for (ConfiguredLimit limit : this.plans.forRequest(configured, context)) {
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
		Map<String, List<ConfiguredLimit>> byKey = this.clientKeys.groupByKey(this.plans.forRequest(configured, context),
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

}
