package dev.ratelimit.spring.limits;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.FailurePolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;

/**
 * A limit as configured by an annotation or a filter rule, checked at startup: its parts grouped by what they are
 * for, with an accessor for each part on the limit itself.
 *
 * @param budget what a call takes: the limit's request, its local share while Redis fails, and the plan that shaped
 * them
 * @param clientKey whose budget a call takes from
 * @param origin where it was configured
 * @param handling what a call does when Redis fails, when it is denied and when it is charged
 * @param planning when {@code ratelimit.plans} names this limit: this limit as each configured plan shapes it, and
 * how a request's plan is told; otherwise {@link Planning#NONE}
 */
public record ConfiguredLimit(Budget budget, ClientKey clientKey, Origin origin, Handling handling,
		Planning planning) {

	/**
	 * A limit's shapes by plan and by client.
	 * @param selector tells a request's plan; the one of the configuration that shaped the limit, so that a request
	 * whose limits come from one configuration selects among that configuration's plans
	 * @param byPlan this limit as each configured plan shapes it, by plan name; empty when the limit is not planned
	 * @param byClient this limit (in its plan's shape) as the overrides of single clients shape it, by client tag
	 * ({@link RateLimiter#clientTag}); empty when no client has one
	 */
	public record Planning(PlanSelector selector, Map<String, ConfiguredLimit> byPlan,
			Map<String, ConfiguredLimit> byClient) {

		/** Not planned. */
		public static final Planning NONE = new Planning(PlanSelector.none(), Map.of());

		public Planning {
			byPlan = Map.copyOf(byPlan);
			byClient = Map.copyOf(byClient);
		}

		/** Shapes by plan, none by client. */
		public Planning(PlanSelector selector, Map<String, ConfiguredLimit> byPlan) {
			this(selector, byPlan, Map.of());
		}

	}

	/**
	 * What a call of the limit takes.
	 * @param request the limit with every default applied, and what each call asks of it: its cost, and in shadow
	 * mode {@link LimitRequest#shadow()}
	 * @param localShare for {@link FailurePolicy#FAIL_LOCAL}, the limit this instance applies alone while Redis fails
	 * ({@code ratelimit.fail-local.instances}); {@code null} for the other policies
	 * @param plan the plan whose shape {@code request} has, or {@code null} when it is the limit's own
	 */
	public record Budget(LimitRequest request, @Nullable LimitRequest localShare, @Nullable String plan) {
	}

	/**
	 * The limit's client key.
	 * @param expression the parsed key expression, or {@code null} for the client's IP address
	 * @param readsArguments whether the key reads the annotated method's arguments ({@code #username}, {@code #p0}),
	 * so it can be decided only when the method is called, not when the request arrives
	 */
	public record ClientKey(@Nullable Expression expression, boolean readsArguments) {
	}

	/**
	 * Where the limit was configured.
	 * @param source for messages: {@code "@RateLimited on Foo.bar(String)"} or {@code "ratelimit.filter.rules[0]"}
	 * @param explicitName whether the name was given rather than derived from the source
	 */
	public record Origin(String source, boolean explicitName) {
	}

	/**
	 * How calls treat the limit.
	 * @param failurePolicy what to do when Redis fails
	 * @param maxWait the annotation's {@code maxWait} or the rule's {@code max-wait}: how long a denied call may wait
	 * for a permit; {@code null} when not given (then {@code ratelimit.defaults.max-wait} outside a request, no wait
	 * within one), and for gateway routes
	 * @param charge for a limit charged by outcome, when a call is charged; {@code null} for a limit charged before
	 * the call
	 * @param reserve for a limit charged by outcome: whether its cost is reserved at admission and given back when
	 * the outcome does not charge (exact), rather than read at admission and charged after the call
	 * @param settleCost for a cost known after the call: the expression of the call's real cost, over
	 * {@code #result}; the cost is then a provisional one, reserved at admission and settled after the call
	 * @param settleCostHeader for a filter rule's cost known after the response: the response header the application
	 * sets to the request's real cost ({@code settle-cost-header}), which never leaves the server; the cost is then a
	 * provisional one, as with {@code settleCost}
	 */
	public record Handling(FailurePolicy failurePolicy, @Nullable Duration maxWait, @Nullable ChargeCondition charge,
			boolean reserve, @Nullable Expression settleCost, @Nullable String settleCostHeader) {

		/** Handling without a reservation. */
		public Handling(FailurePolicy failurePolicy, @Nullable Duration maxWait, @Nullable ChargeCondition charge) {
			this(failurePolicy, maxWait, charge, false, null, null);
		}

	}

	public String name() {
		return request().name();
	}

	/** {@link Budget#request()}. */
	public LimitRequest request() {
		return this.budget.request();
	}

	/** {@link Budget#localShare()}. */
	public @Nullable LimitRequest localShare() {
		return this.budget.localShare();
	}

	/** {@link Budget#plan()}. */
	public @Nullable String plan() {
		return this.budget.plan();
	}

	/** {@link ClientKey#expression()}. */
	public @Nullable Expression key() {
		return this.clientKey.expression();
	}

	/** {@link ClientKey#readsArguments()}. */
	public boolean readsArguments() {
		return this.clientKey.readsArguments();
	}

	/** {@link Origin#source()}. */
	public String source() {
		return this.origin.source();
	}

	/** {@link Origin#explicitName()}. */
	public boolean explicitName() {
		return this.origin.explicitName();
	}

	/** {@link Handling#failurePolicy()}. */
	public FailurePolicy failurePolicy() {
		return this.handling.failurePolicy();
	}

	/** {@link Handling#maxWait()}. */
	public @Nullable Duration maxWait() {
		return this.handling.maxWait();
	}

	/** {@link Handling#charge()}. */
	public @Nullable ChargeCondition charge() {
		return this.handling.charge();
	}

	/**
	 * Whether this is a concurrency limit ({@code algorithm: concurrency}): a call holds a lease of it until the call
	 * ends, rather than taking units of a rate.
	 */
	public boolean concurrency() {
		return !request().definition().algorithm().rate();
	}

	/** Whether this limit is in shadow mode: decided and counted, never refusing. */
	public boolean shadow() {
		return request().shadow();
	}

	/**
	 * Whether this limit can be decided only when its method is called, not on the request's arrival: its key reads
	 * the arguments, or it is charged by the call's outcome.
	 */
	public boolean decidedOnCall() {
		return readsArguments() || chargedByOutcome();
	}

	/**
	 * Whether what the call takes depends on its outcome: it is charged by its outcome ({@link #charge()}), or its cost
	 * is settled after it ({@link Handling#settleCost()}).
	 */
	public boolean chargedByOutcome() {
		return charge() != null || settleCost() != null || settleCostHeader() != null;
	}

	/**
	 * Whether the call's cost is reserved at admission (an ordinary decision) and settled after the call: charged by
	 * outcome with {@link Handling#reserve()}, or with a cost settled after the call.
	 */
	public boolean reserved() {
		return this.handling.reserve() || settleCost() != null || settleCostHeader() != null;
	}

	/** {@link Handling#settleCostHeader()}. */
	public @Nullable String settleCostHeader() {
		return this.handling.settleCostHeader();
	}

	/** {@link Handling#settleCost()}. */
	public @Nullable Expression settleCost() {
		return this.handling.settleCost();
	}

	/** Whether a response with {@code status} charges this limit ({@code charge-on-status}, {@code chargeOnStatus}). */
	public boolean chargedOnStatus(int status) {
		ChargeCondition charge = charge();
		return charge != null && charge.matchesStatus(status);
	}

	/** This limit as one plan shapes it: the plan's budget, every other part this limit's. */
	ConfiguredLimit inPlan(Budget budget) {
		return new ConfiguredLimit(budget, this.clientKey, this.origin, this.handling, Planning.NONE);
	}

	/** This limit with its shape in every plan of {@code selector} ({@link #forPlan}). */
	ConfiguredLimit withPlans(PlanSelector selector, Map<String, ConfiguredLimit> byPlan) {
		return new ConfiguredLimit(this.budget, this.clientKey, this.origin, this.handling,
				new Planning(selector, byPlan));
	}

	/** This limit with its shapes for single clients ({@link #forClient}). */
	ConfiguredLimit withClients(Map<String, ConfiguredLimit> byClient) {
		return new ConfiguredLimit(this.budget, this.clientKey, this.origin, this.handling,
				new Planning(this.planning.selector(), this.planning.byPlan(), byClient));
	}

	/** {@link Planning#byClient()}. */
	public Map<String, ConfiguredLimit> byClient() {
		return this.planning.byClient();
	}

	/**
	 * This limit as the overrides of the client {@code clientKey} shape it (call it on a limit in its plan's shape,
	 * {@link #forPlan}); this limit itself when the client has none.
	 * @param clientKey the client key the limit was resolved to for a request: {@code key:<value>} or
	 * {@code ip:<address>}, told by its tag, as the limiter's keys tell clients
	 */
	public ConfiguredLimit forClient(String clientKey) {
		if (this.planning.byClient().isEmpty()) {
			return this;
		}
		ConfiguredLimit shaped = this.planning.byClient().get(RateLimiter.clientTag(clientKey));
		return (shaped != null) ? shaped : this;
	}

	/** {@link Planning#byPlan()}. */
	public Map<String, ConfiguredLimit> byPlan() {
		return this.planning.byPlan();
	}

	/** Whether the shape of this limit depends on the client's plan. */
	public boolean planned() {
		return !this.planning.byPlan().isEmpty();
	}

	/**
	 * This limit as {@code plan} shapes it: {@code plan} is a configured plan name ({@link PlanSelector#select} never yields
	 * another); this limit itself when it is not planned.
	 */
	public ConfiguredLimit forPlan(String plan) {
		ConfiguredLimit shaped = this.planning.byPlan().get(plan);
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
				// a call takes one lease of a concurrency limit however many of its limits name it
				byName.merge(limit.name(), budget, (first, second) -> first.definition().algorithm().rate()
						? first.withCost(first.cost() + second.cost()) : first);
			}
		}
		return List.copyOf(byName.values());
	}

}
