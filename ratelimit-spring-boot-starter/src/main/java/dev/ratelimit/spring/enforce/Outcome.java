package dev.ratelimit.spring.enforce;

import java.util.function.Supplier;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.RateLimitExceededException;
import org.jspecify.annotations.Nullable;

/**
 * The names of a decision's outcomes, one rule for the {@code ratelimit.decisions} metric (one outcome per limit) and
 * the decisions' observations (one per call).
 */
final class Outcome {

	static final String ALLOWED = "allowed";

	static final String DENIED = "denied";

	/** A wait whose caller went away: observations only. */
	static final String CANCELLED = "cancelled";

	/** Settlements and leases, observations only: Redis answered, or failed (the observation's error too). */
	static final String SETTLED = "settled";

	static final String FAILED = "failed";

	/** A settlement in this instance's memory, of units reserved there while Redis failed. */
	static final String LOCAL = "local";

	static final String RENEWED = "renewed";

	static final String LOST = "lost";

	static final String RELEASED = "released";

	static final String FAIL_OPEN = "fail-open";

	static final String FAIL_CLOSED = "fail-closed";

	static final String LOCAL_DENIED = "local-denied";

	static final String SHADOW_DENIED = "shadow-denied";

	/** A denial this instance remembered, answered without a call to Redis: observations only. */
	static final String REMEMBERED_DENIED = "remembered-denied";

	private Outcome() {
	}

	/**
	 * One limit's verdict: {@code allowed} or {@code denied} ({@code local-} before them when this instance decided
	 * it while Redis failed), or {@code shadow-denied} for a shadow limit's denial.
	 */
	static String of(LimitDecision limit, boolean local) {
		if (limit.allowed()) {
			return local ? "local-allowed" : ALLOWED;
		}
		return limit.request().shadow() ? SHADOW_DENIED : local ? LOCAL_DENIED : DENIED;
	}

	/**
	 * The verdict where Redis did not decide and the failure policy let the call go on: this instance's decision
	 * ({@code local} from {@code fail-local}), or {@code fail-open} when there is none. A fail-closed limit's 503 is
	 * {@link #FAIL_CLOSED}, and this instance's 429 thrown {@link #LOCAL_DENIED}.
	 */
	static String ofPolicy(@Nullable RateLimitDecision local) {
		return (local != null) ? of(local, true) : FAIL_OPEN;
	}

	/**
	 * What the failure policies of limits Redis did not decide answer, {@code policies}, with its verdict stopped on
	 * {@code observed}: this instance's 429 thrown is {@link #LOCAL_DENIED}, a fail-closed limit's 503 (or anything
	 * else thrown) {@link #FAIL_CLOSED}, an answer as {@link #ofPolicy} names it. The one place that names them, for
	 * decisions, admissions read before a call and charges alike.
	 * @return the instance's decision, or {@code null} when the limits fail open
	 */
	static @Nullable RateLimitDecision ofPolicies(DecisionObservations.Observed observed,
			Supplier<@Nullable RateLimitDecision> policies) {
		RateLimitDecision local;
		try {
			local = policies.get();
		}
		catch (RuntimeException ex) {
			observed.stop((ex instanceof RateLimitExceededException) ? LOCAL_DENIED : FAIL_CLOSED);
			throw ex;
		}
		observed.stop(ofPolicy(local));
		return local;
	}

	/**
	 * A call's verdict on all its limits: denied when an enforced limit denied, else {@code shadow-denied} when a
	 * shadow limit did, else allowed (named as {@link #of(LimitDecision, boolean)} names them).
	 */
	static String of(RateLimitDecision decision, boolean local) {
		if (!decision.allowed()) {
			return local ? LOCAL_DENIED : DENIED;
		}
		if (!decision.shadowDenied().isEmpty()) {
			return SHADOW_DENIED;
		}
		return local ? "local-allowed" : ALLOWED;
	}

}
