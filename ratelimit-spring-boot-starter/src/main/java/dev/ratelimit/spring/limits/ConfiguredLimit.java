package dev.ratelimit.spring.limits;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.spring.FailurePolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;

/**
 * A limit as configured by an annotation or a filter rule, checked at startup.
 *
 * @param request the limit with every default applied, and what each call asks of it: its cost, and in shadow mode
 * {@link LimitRequest#shadow()}
 * @param key the parsed client key expression, or {@code null} for the client's IP address
 * @param failurePolicy what to do when Redis fails
 * @param source where it was configured, for messages: {@code "@RateLimited on Foo.bar(String)"} or
 * {@code "ratelimit.filter.rules[0]"}
 * @param explicitName whether the name was given rather than derived from the source
 * @param readsArguments whether the key reads the annotated method's arguments ({@code #username}, {@code #p0}), so
 * it can be decided only when the method is called, not when the request arrives
 * @param localShare for {@link FailurePolicy#FAIL_LOCAL}, the limit this instance applies alone while Redis fails
 * ({@code ratelimit.fail-local.instances}); {@code null} for the other policies
 * @param plan the plan whose shape {@code request} has, or {@code null} when it is the limit's own
 * @param byPlan when {@code ratelimit.plans} names this limit: this limit as each configured plan shapes it, by plan
 * name; otherwise empty
 * @param maxWait the annotation's {@code maxWait}: how long a denied call may wait for a permit; {@code null} when
 * not given (then {@code ratelimit.defaults.max-wait} outside a request, no wait within one), and for filter rules
 * @param charge for a limit charged by outcome, when a call is charged; {@code null} for a limit charged before the
 * call
 */
public record ConfiguredLimit(LimitRequest request, @Nullable Expression key, FailurePolicy failurePolicy, String source,
		boolean explicitName, boolean readsArguments, @Nullable LimitRequest localShare, @Nullable String plan,
		Map<String, ConfiguredLimit> byPlan, @Nullable Duration maxWait, @Nullable ChargeCondition charge) {

	public ConfiguredLimit {
		byPlan = Map.copyOf(byPlan);
	}

	public String name() {
		return this.request.name();
	}

	/** Whether this limit is in shadow mode: decided and counted, never refusing. */
	public boolean shadow() {
		return this.request.shadow();
	}

	/**
	 * Whether this limit can be decided only when its method is called, not on the request's arrival: its key reads
	 * the arguments, or it is charged by the call's outcome.
	 */
	public boolean decidedOnCall() {
		return this.readsArguments || this.charge != null;
	}

	/** Whether the call is charged after it ran, by its outcome, rather than before. */
	public boolean chargedByOutcome() {
		return this.charge != null;
	}

	/**
	 * This limit as one plan shapes it: the plan's request and local share, every other component this limit's.
	 * @param plan the plan's name
	 */
	ConfiguredLimit inPlan(String plan, LimitRequest request, @Nullable LimitRequest localShare) {
		return new ConfiguredLimit(request, this.key, this.failurePolicy, this.source, this.explicitName,
				this.readsArguments, localShare, plan, Map.of(), this.maxWait, this.charge);
	}

	/** This limit with its shape in every plan ({@link #forPlan}). */
	ConfiguredLimit withPlans(Map<String, ConfiguredLimit> byPlan) {
		return new ConfiguredLimit(this.request, this.key, this.failurePolicy, this.source, this.explicitName,
				this.readsArguments, this.localShare, null, byPlan, this.maxWait, this.charge);
	}

	/** Whether the shape of this limit depends on the client's plan. */
	public boolean planned() {
		return !this.byPlan.isEmpty();
	}

	/**
	 * This limit as {@code plan} shapes it: {@code plan} is a configured plan name ({@link PlanSelector#select} never yields
	 * another); this limit itself when it is not planned.
	 */
	public ConfiguredLimit forPlan(String plan) {
		ConfiguredLimit shaped = this.byPlan.get(plan);
		return (shaped != null) ? shaped : this;
	}

	/**
	 * The budgets that {@code limits} take from, one per name: limits with one name are one budget (their shapes
	 * agree: {@link LimitRegistry}), so when several apply to one request (a rule and an annotation, a class and its
	 * method) the request takes the sum of their costs from it once.
	 * @param request which request of each limit: its own, or its local share ({@code null}: none, skipped)
	 * @return the merged requests, one per name with the sum of the costs, in the order of the first limit of each
	 * name; empty when none
	 */
	public static List<LimitRequest> sharedBudgets(List<ConfiguredLimit> limits,
			Function<ConfiguredLimit, @Nullable LimitRequest> request) {
		Map<String, LimitRequest> byName = new LinkedHashMap<>();
		for (ConfiguredLimit limit : limits) {
			LimitRequest budget = request.apply(limit);
			if (budget != null) {
				byName.merge(limit.name(), budget, (first, second) -> first.withCost(first.cost() + second.cost()));
			}
		}
		return List.copyOf(byName.values());
	}

}
