package dev.ratelimit.spring.web;

import java.util.List;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.OutcomeCharger;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.RequestDeadline;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;

import org.springframework.expression.EvaluationContext;

/**
 * The rules charged by the response's status ({@code charge-on-status}), the same on Spring MVC and WebFlux: a
 * request's admission, before the application answers it, and its charge once its status is known. Rules that
 * {@code reserve} take their cost at admission, as any rule, and give it back when the status does not charge; the
 * others are read at admission and charged after. The request's time here is apart from the rest of the request's
 * ({@link RequestDeadline#apart}). Blocks the calling thread.
 */
public final class StatusChargedRules {

	private final RateLimitEnforcer enforcer;

	public StatusChargedRules(RateLimitEnforcer enforcer) {
		this.enforcer = enforcer;
	}

	/** What a request was admitted with, to charge once its status is known. */
	public static final class Admission {

		private final LimitedRequest request;

		private final List<ConfiguredLimit> rules;

		private final EvaluationContext context;

		private final Reservation reservation = new Reservation();

		Admission(LimitedRequest request, List<ConfiguredLimit> rules, EvaluationContext context) {
			this.request = request;
			this.rules = rules;
			this.context = context;
		}

	}

	/**
	 * Admits a request to the rules charged by status that match it: their rate-limit fields go on its response now.
	 * @throws RateLimitException the 429 (or a failure policy's answer) when a rule denies it; what other rules
	 * reserved is given back first
	 */
	public Admission admit(LimitedRequest request, List<ConfiguredLimit> rules, EvaluationContext context) {
		Admission admission = new Admission(RequestDeadline.apart(request), rules, context);
		OutcomeCharger charger = this.enforcer.byOutcome();
		List<ConfiguredLimit> read = reserving(rules, false);
		List<ConfiguredLimit> reserved = reserving(rules, true);
		try {
			if (!read.isEmpty()) {
				charger.admitRules(admission.request, read, context);
			}
			if (!reserved.isEmpty()) {
				this.enforcer.reserveAndWait(admission.request, reserved, context, admission.reservation);
				charger.admitted(admission.request);
			}
		}
		catch (RuntimeException ex) {
			charger.release(admission.request, admission.reservation);
			throw ex;
		}
		return admission;
	}

	/**
	 * Charges an admitted request by its response {@code status}: the rules read at admission whose statuses have it,
	 * and what the reserving rules took given back where they do not. Never an error.
	 */
	public void charge(Admission admission, int status) {
		OutcomeCharger charger = this.enforcer.byOutcome();
		List<ConfiguredLimit> read = reserving(admission.rules, false);
		if (!read.isEmpty()) {
			charger.chargeStatus(admission.request, read, status, admission.context);
		}
		charger.settle(admission.request, admission.reservation,
				(rule) -> rule.chargedOnStatus(status) ? rule.request().cost() : 0);
	}

	/**
	 * Gives back what the reserving rules took, for a request whose client went away before it was answered: it
	 * has no status, and its client learnt nothing. Never an error.
	 */
	public void release(Admission admission) {
		this.enforcer.byOutcome().release(admission.request, admission.reservation);
	}

	private static List<ConfiguredLimit> reserving(List<ConfiguredLimit> rules, boolean reserved) {
		return rules.stream().filter((rule) -> rule.reserved() == reserved).toList();
	}

}
