package dev.ratelimit.spring.web;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.OutcomeCharger;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.RequestDeadline;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationContext;

/**
 * The rules charged by the response ({@code charge-on-status}, {@code settle-cost-header}), the same on Spring MVC and
 * WebFlux: a request's admission, before the application answers it, and its charge once its answer is known. Rules
 * that {@code reserve} take their cost at admission, as any rule, and give it back when the status does not charge;
 * rules with a cost header take their cost as a provisional one and are settled by the header's value; the others
 * are read at admission and charged after. The request's time here is apart from the rest of the request's
 * ({@link RequestDeadline#apart}). Blocks the calling thread.
 */
public final class StatusChargedRules {

	private static final Log logger = LogFactory.getLog(StatusChargedRules.class);

	private final RateLimitEnforcer enforcer;

	public StatusChargedRules(RateLimitEnforcer enforcer) {
		this.enforcer = enforcer;
	}

	/** What a request was admitted with, to charge once its answer is known. */
	public static final class Admission {

		private final LimitedRequest request;

		private final List<ConfiguredLimit> rules;

		private final EvaluationContext context;

		/** What the rules charged by status that reserve took. */
		private final Reservation reservation = new Reservation();

		/** What the rules with a cost header took, settled as soon as the cost is known. */
		private final Reservation costs = new Reservation();

		Admission(LimitedRequest request, List<ConfiguredLimit> rules, EvaluationContext context) {
			this.request = request;
			this.rules = rules;
			this.context = context;
		}

	}

	/**
	 * Admits a request to the rules charged by its answer that match it: their rate-limit fields go on its response
	 * now.
	 * @throws RateLimitException the 429 (or a failure policy's answer) when a rule denies it; what other rules
	 * reserved is given back first
	 */
	public Admission admit(LimitedRequest request, List<ConfiguredLimit> rules, EvaluationContext context) {
		Admission admission = new Admission(RequestDeadline.apart(request), rules, context);
		OutcomeCharger charger = this.enforcer.byOutcome();
		List<ConfiguredLimit> read = rules.stream().filter((rule) -> !rule.reserved()).toList();
		List<ConfiguredLimit> reserved = rules.stream()
			.filter((rule) -> rule.reserved() && rule.settleCostHeader() == null)
			.toList();
		List<ConfiguredLimit> costed = rules.stream().filter((rule) -> rule.settleCostHeader() != null).toList();
		try {
			if (!read.isEmpty()) {
				charger.admitRules(admission.request, read, context);
			}
			if (!reserved.isEmpty()) {
				this.enforcer.reserveAndWait(admission.request, reserved, context, admission.reservation);
			}
			if (!costed.isEmpty()) {
				this.enforcer.reserveAndWait(admission.request, costed, context, admission.costs);
			}
			charger.admitted(admission.request);
		}
		catch (RuntimeException ex) {
			charger.release(admission.request, admission.reservation);
			charger.release(admission.request, admission.costs);
			throw ex;
		}
		return admission;
	}

	/**
	 * Settles the rules with a cost header by its value ({@code header}: the value the application set, or
	 * {@code null} to keep the provisional cost), once: called before the response is committed, so that the
	 * request that crosses a budget is answered only once its debt is recorded. Never an error.
	 */
	private void settleCosts(Admission admission, Function<String, @Nullable String> header) {
		this.enforcer.byOutcome().settle(admission.request, admission.costs, (rule) -> {
			String name = rule.settleCostHeader();
			return (name != null) ? headerCost(rule, name, header.apply(name)) : rule.request().cost();
		});
	}

	/**
	 * Charges an admitted request by its response {@code status}: the rules read at admission whose statuses have it,
	 * what the reserving rules took given back where they do not, and the rules with a cost header, unless settled
	 * already, by its value. Never an error.
	 */
	public void charge(Admission admission, int status, Function<String, @Nullable String> header) {
		OutcomeCharger charger = this.enforcer.byOutcome();
		List<ConfiguredLimit> read = admission.rules.stream().filter((rule) -> !rule.reserved()).toList();
		if (!read.isEmpty()) {
			charger.chargeStatus(admission.request, read, status, admission.context);
		}
		charger.settle(admission.request, admission.reservation,
				(rule) -> rule.chargedOnStatus(status) ? rule.request().cost() : 0);
		settleCosts(admission, header);
	}

	/**
	 * Gives back what the reserving rules took, for a request whose client went away before it was answered: it
	 * has no status, and its client learnt nothing; the rules with a cost header keep their provisional cost, as a
	 * settled cost does for a cancelled call. Never an error.
	 */
	public void release(Admission admission) {
		this.enforcer.byOutcome().release(admission.request, admission.reservation);
	}

	/** The names of the cost headers of {@code rules}, which the response must not carry. */
	public static Set<String> costHeaders(List<ConfiguredLimit> rules) {
		Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
		for (ConfiguredLimit rule : rules) {
			String name = rule.settleCostHeader();
			if (name != null) {
				names.add(name);
			}
		}
		return names;
	}

	/** The header's whole number of at least 0; the provisional cost when it is missing or not one. */
	private static long headerCost(ConfiguredLimit rule, String name, @Nullable String value) {
		if (value != null) {
			try {
				long cost = Long.parseLong(value.trim());
				if (cost >= 0) {
					return cost;
				}
			}
			catch (NumberFormatException ex) {
				// warned below
			}
			logger.warn("Header " + name + " of a request limited by " + rule.source() + " is '" + value
					+ "', not a whole number of at least 0; keeping the provisional cost");
		}
		return rule.request().cost();
	}

}
