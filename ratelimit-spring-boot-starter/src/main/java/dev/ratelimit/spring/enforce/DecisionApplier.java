package dev.ratelimit.spring.enforce;

import java.util.List;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.jspecify.annotations.Nullable;

/**
 * What a request's decisions make of it: the rate-limit fields of its response, the 429 when a limit denies, the
 * metrics and shadow-denial logs, and the failure policies' answer for limits that Redis did not decide.
 */
public final class DecisionApplier {

	private final RateLimitResponder responses;

	private final RateLimitEventRecorder events;

	private final ShadowDenialLogger shadowDenials;

	private final FailurePolicyHandler failurePolicies;

	private final LocalFallback fallback;

	/**
	 * @param responses the 429, 503 and 400 answers and the header fields
	 * @param events metrics and log lines
	 * @param shadowDenials the log of shadow limits' denials
	 * @param fallback this instance's local state for fail-local limits
	 */
	public DecisionApplier(RateLimitResponder responses, RateLimitEventRecorder events, ShadowDenialLogger shadowDenials,
			LocalFallback fallback) {
		this.responses = responses;
		this.events = events;
		this.shadowDenials = shadowDenials;
		this.failurePolicies = new FailurePolicyHandler(fallback, events, responses);
		this.fallback = fallback;
	}

	/** Every client's state was reset: so is this instance's fail-local state. */
	void resetLocal() {
		this.fallback.reset();
	}

	/**
	 * A decision of Redis, or remembered from it: its fields added to {@code applied}, its metrics and shadow denials.
	 * @throws RateLimitException the 429 when it denies
	 */
	void apply(LimitedRequest request, RateLimitDecision decision, List<LimitDecision> applied) {
		this.events.decided(decision);
		applyLocal(request, decision, applied);
	}

	/**
	 * The limits of one client key that Redis did not decide, before the request runs, as their failure policy says:
	 * the local decision's fields added to {@code applied}.
	 * @param lease the lease id of the request's concurrency limits, or {@code null}
	 * @return the local decision, or {@code null} when none is fail-local
	 * @throws RateLimitException the 503 of a fail-closed limit, or the 429 when the local decision denies
	 */
	@Nullable RateLimitDecision decideLocally(LimitedRequest request, String clientKey, List<ConfiguredLimit> limits,
			List<LimitDecision> applied, @Nullable String lease) {
		RateLimitDecision local = this.failurePolicies.apply(request, clientKey, limits,
				FailurePolicyHandler.Moment.DECISION, lease);
		if (local != null) {
			applyLocal(request, local, applied);
		}
		return local;
	}

	/**
	 * The failure policies of limits that Redis did not read at a call's admission, or did not charge after it.
	 * @return the local decision, or {@code null} when none is fail-local
	 * @throws RateLimitException the 503 of a fail-closed limit at admission
	 */
	@Nullable RateLimitDecision notDecided(LimitedRequest request, String clientKey, List<ConfiguredLimit> limits,
			FailurePolicyHandler.Moment moment) {
		return this.failurePolicies.apply(request, clientKey, limits, moment, null);
	}

	/** A decision that nothing was asked for: the denial of a client this instance has just seen denied. */
	void deniedFromMemory() {
		this.events.deniedFromMemory();
	}

	/** Counts a decision that is not otherwise applied (a charge after the call). */
	void decided(RateLimitDecision decision) {
		this.events.decided(decision);
	}

	/**
	 * The admission of a call charged by outcome, read: nothing when every limit has room.
	 * @throws RateLimitException the 429 when one has none
	 */
	void admit(LimitedRequest request, RateLimitDecision admission, List<LimitDecision> fields) {
		if (!admission.allowed()) {
			this.events.decided(admission);
			throw this.responses.exceeded(request, fields, admission);
		}
	}

	/** The rate-limit fields of these decisions on the request's response, unless there are none. */
	void addFields(LimitedRequest request, List<LimitDecision> fields) {
		if (!fields.isEmpty()) {
			this.responses.headers().addTo(request, fields);
		}
	}

	/**
	 * The decisions whose fields the response carries: not those of shadow limits, which a client would slow down
	 * for although they refuse nothing.
	 */
	static List<LimitDecision> enforced(RateLimitDecision decision) {
		return decision.decisions().stream().filter((limit) -> !limit.request().shadow()).toList();
	}

	private void applyLocal(LimitedRequest request, RateLimitDecision decided, List<LimitDecision> applied) {
		RateLimitDecision decision = ConcurrencyHint.announced(decided);
		// enforced(decision), added as they are found: no list of them for every decision
		for (LimitDecision limit : decision.decisions()) {
			if (!limit.request().shadow()) {
				applied.add(limit);
			}
		}
		this.shadowDenials.record(decision);
		if (!decision.allowed()) {
			throw this.responses.exceeded(request, applied, decision);
		}
	}

}
