package dev.ratelimit.spring.actuate.endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

import dev.ratelimit.core.HeldLease;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.RateLimitHeaderWriter;
import dev.ratelimit.spring.enforce.DenialCache;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.limits.LimitOverride;
import dev.ratelimit.spring.limits.LimitOverrides;
import dev.ratelimit.spring.limits.OverridesSync;
import dev.ratelimit.spring.limits.PlanSelector;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * The {@code ratelimits} Actuator endpoint, for operators: every limit of the application, one client's state of a
 * limit, and resetting it (to unblock a client).
 * <ul>
 * <li>{@code GET /actuator/ratelimits}: every limit with its source (a filter rule or an annotated method), shape,
 * cost, key expression ({@code null}: the client's IP address), failure policy and mode; a planned limit once per
 * plan.</li>
 * <li>{@code GET /actuator/ratelimits/{name}?client=key:k-42}: the client's state of the limit, read without consuming
 * anything ({@link RateLimiter#peek}), once per shape (per plan, for a planned limit, since the plan of a client is
 * known only from its requests): {@code remaining} (cost-1 requests), {@code resetAfterMs}, {@code moreAfterMs}, and
 * for each cost the limit's sources configure whether a request of that cost would be admitted now, with the item of
 * the {@code RateLimit} header field its response would carry. A name with slashes (a rule named after its path) is
 * read by that path: {@code /actuator/ratelimits/users/*}{@code /orders}.</li>
 * <li>{@code DELETE /actuator/ratelimits/{name}?client=key:k-42}: deletes the client's state of the limit, every shape
 * at once ({@link RateLimiter#reset}); the client has its full allowance again. The denials this instance
 * remembers of the client are forgotten at once; other instances forget theirs within
 * {@code ratelimit.denials.max-age}. For a concurrency limit, the state lists the leases held and their holders, and
 * {@code &lease=<id>} gives back that one lease only.</li>
 * <li>{@code POST /actuator/ratelimits/{name}} with a JSON body ({@code {"limit": 200}}, {@code {"plan": "pro",
 * "limit": 200}}, {@code {"undo": true}}): overrides the limit's shape, mode or failure policy, or a plan's shape of
 * it, on every instance ({@link #override}).</li>
 * </ul>
 * {@code client} is the client key as the limiter resolves it: {@code ip:<address>} for a limit by IP address (or a
 * missing key that fell back to it; an IPv6 address in any form, {@link ClientKeyResolver#canonicalIp}), {@code key:<value>}
 * for the value of a key expression. Answers 404 for a name that
 * no limit has, 400 for a client in neither form, 503 when the store does not answer in time
 * ({@code ratelimit.redis.timeout}). Off the web until exposed, as every Actuator endpoint but health
 * ({@code management.endpoints.web.exposure.include=ratelimits}); {@code management.endpoint.ratelimits.access=read-only}
 * allows the reads, without the reset or a change.
 */
@WebEndpoint(id = "ratelimits")
public class RateLimitsEndpoint {

	private static final Log logger = LogFactory.getLog(RateLimitsEndpoint.class);

	private final RateLimiter limiter;

	private final LimitConfigurations configurations;

	private final OverridesSync overrides;

	private final String store;

	private final DenialCache denials;

	/**
	 * @param configurations the limits in force
	 * @param overrides where overrides are checked, stored and applied
	 * @param store {@code redis} or {@code in-memory}
	 */
	public RateLimitsEndpoint(RateLimiter limiter, LimitConfigurations configurations, OverridesSync overrides,
			String store, DenialCache denials) {
		this.limiter = limiter;
		this.denials = denials;
		this.configurations = configurations;
		this.overrides = overrides;
		this.store = store;
	}

	/** The limits in force, read from one configuration. */
	private LimitLookup lookup() {
		return new LimitLookup(this.configurations.current());
	}

	@ReadOperation
	public Limits limits() {
		LimitLookup lookup = lookup();
		List<Limit> limits = new ArrayList<>();
		for (ConfiguredLimit limit : lookup.all()) {
			for (ConfiguredLimit shaped : lookup.shapes(limit)) {
				LimitDefinition definition = shaped.request().definition();
				limits.add(new Limit(definition.name(), limit.source(), shaped.plan(), term(definition.algorithm()),
						definition.limit(), definition.window().toString(), definition.capacity(), shaped.request().cost(),
						(limit.key() != null) ? limit.key().getExpressionString() : null, term(limit.failurePolicy()),
						limit.shadow() ? "shadow" : "enforce"));
			}
		}
		PlanSelector plans = lookup.plans();
		return new Limits(this.store, plans.names().isEmpty() ? null
				: new PlanSelection(plans.expression(), plans.defaultPlan(), List.copyOf(plans.names())),
				limits, overrides());
	}

	/** The overrides stored, each saying whether it is in force here. */
	private List<Overridden> overrides() {
		LimitOverrides inForce = this.configurations.current().overrides();
		LimitOverrides stored = this.overrides.stored();
		List<Overridden> list = new ArrayList<>();
		stored.limits()
			.forEach((name, override) -> list.add(Overridden.of(name, null, override, inForce.get(null, name) != null)));
		stored.plans()
			.forEach((plan, shapes) -> shapes.forEach((name, override) -> list
				.add(Overridden.of(name, plan, override, inForce.get(plan, name) != null))));
		return list;
	}

	/**
	 * Sets the override of a limit, or of its shape in one plan, in place of its configured values and of its
	 * earlier override (one override per limit and plan: fields it does not give are the configuration's), on every
	 * instance; or undoes it. Only values, never code: a key, a rule's paths or a plan expression come from the
	 * application's configuration sources alone.
	 * @param limitPath the limit's name, as {@link #state} reads it (not {@code name}: a body's {@code name} would
	 * take the path's place)
	 * @param plan the plan whose shape of the limit changes; {@code null} for the limit itself
	 * @param undo {@code true} to remove the override, alone: the configured values are back
	 * @param name refused: the limit is the one the path names
	 * @param key refused: keys are expressions, which the endpoint never takes
	 * @param paths refused: rules come from the configuration
	 * @param expression refused: expressions come from the configuration
	 * @return 200 with the overrides stored; 400 naming the property or the method when the change would make a
	 * limit invalid, which leaves every limit as it was; 404 for an unknown limit or plan (an override left aside
	 * can still be undone); 503 when the store does not answer (the change may still have reached it: read the
	 * overrides before trying again)
	 */
	@WriteOperation
	public WebEndpointResponse<Object> override(@Selector(match = Match.ALL_REMAINING) String[] limitPath,
			@Nullable String plan, @Nullable String algorithm, @Nullable Long limit, @Nullable String window,
			@Nullable Long capacity, @Nullable String mode, @Nullable String failurePolicy, @Nullable Boolean undo,
			@Nullable String name, @Nullable String key, @Nullable String paths, @Nullable String expression) {
		if (key != null || paths != null || expression != null) {
			return badRequest("The ratelimits endpoint changes a limit's algorithm, limit, window, capacity, mode and"
					+ " failure policy, and a plan's shape of it; keys, rules and plan expressions come only from the"
					+ " application's configuration (they are expressions, and the endpoint runs no code)");
		}
		if (name != null) {
			return badRequest("The limit is the one the path names (/actuator/ratelimits/{name}); the body gives"
					+ " what changes");
		}
		LimitLookup lookup = lookup();
		String limitName = lookup.name(limitPath);
		boolean undoing = Boolean.TRUE.equals(undo);
		boolean stored = this.overrides.stored().get(plan, limitName) != null;
		if (!lookup.known(limitName) && !(undoing && stored)) {
			return notFound(lookup, limitName);
		}
		if (plan != null && !lookup.plans().names().contains(plan) && !(undoing && stored)) {
			return new WebEndpointResponse<>(new Error("No plan is named '" + plan + "'; the plans are "
					+ String.join(", ", lookup.plans().names())), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		LimitOverride override;
		try {
			override = LimitOverride.of(algorithm, limit, window, capacity, mode, failurePolicy);
		}
		catch (IllegalArgumentException ex) {
			return badRequest(ex.getMessage());
		}
		if (undoing) {
			if (!override.isEmpty()) {
				return badRequest("undo removes the override whole; give it alone, or the values without undo");
			}
			override = null;
		}
		else if (override.isEmpty()) {
			return badRequest("Nothing to change: give algorithm, limit, window, capacity, mode or failurePolicy,"
					+ " or undo=true");
		}
		else if (plan != null && !override.shapeOnly()) {
			return badRequest("A plan shapes a limit's algorithm, limit, window and capacity; its mode and failure"
					+ " policy are the limit's own (set them without plan)");
		}
		try {
			this.overrides.override(plan, limitName, override);
		}
		catch (OverridesSync.InvalidOverrideException ex) {
			// exactly what startup would say of the same values in application.yml
			return badRequest(ex.getMessage());
		}
		catch (RuntimeException ex) {
			return storeFailed("change", limitName, ex);
		}
		logger.info("Rate limit '" + limitName + "'" + ((plan != null) ? " in plan '" + plan + "'" : "")
				+ ((override != null) ? " overridden (" + override.encode() + ")" : ": override undone")
				+ " through the ratelimits endpoint");
		return new WebEndpointResponse<>(overrides());
	}

	private static WebEndpointResponse<Object> badRequest(@Nullable String message) {
		return new WebEndpointResponse<>(new Error(message), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	@ReadOperation
	public WebEndpointResponse<Object> state(@Selector(match = Match.ALL_REMAINING) String[] name, String client) {
		return forClient(name, client, (limit, key) -> {
			try {
				List<State> states = new ArrayList<>();
				LimitLookup lookup = lookup();
				for (Map.Entry<LimitDefinition, @Nullable String> shape : lookup.shapesOf(limit).entrySet()) {
					states.add(state(key, shape.getKey().request().withShadow(lookup.shadow(limit)), shape.getValue(),
							lookup.costsOf(limit)));
				}
				return new WebEndpointResponse<>(new ClientState(limit, key, states));
			}
			catch (RuntimeException ex) {
				return storeFailed("read", limit, ex);
			}
		});
	}

	/** The client's state of one shape, and what a request of each cost would get now. */
	@SuppressWarnings("NullAway") // peeked: a limit has at least one cost
	private State state(String key, LimitRequest shape, @Nullable String plan, List<Long> costs) {
		LimitDefinition definition = shape.definition();
		List<Request> requests = new ArrayList<>();
		LimitDecision peeked = null;
		for (long cost : costs) {
			peeked = this.limiter.peek(key, shape.withCost(cost));
			requests.add(new Request(cost, peeked.allowed(), peeked.retryAfterMs().orElse(Request.NEVER),
					shape.shadow() ? null : RateLimitHeaderWriter.stateItem(peeked)));
		}
		return new State(plan, term(definition.algorithm()), definition.limit(), definition.window().toString(),
				definition.capacity(), peeked.remaining(), peeked.resetAfterMs(), peeked.moreAfterMs(), requests,
				definition.algorithm().rate() ? null
						: this.limiter.leases(key, definition).stream().map(LeaseHolder::of).toList());
	}

	/**
	 * Deletes the client's state of the limit; with {@code lease}, gives back that one lease of a concurrency limit
	 * (a call whose holder is gone, say) and leaves the others.
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> reset(@Selector(match = Match.ALL_REMAINING) String[] name, String client,
			@Nullable String lease) {
		if (lease != null) {
			return release(name, client, lease);
		}
		return forClient(name, client, (limit, key) -> {
			// This instance's remembered denials of the client end now, even if the reset fails (it may still reach
			// Redis); other instances' within ratelimit.denials.max-age.
			this.denials.forget(key);
			try {
				int deleted = this.limiter.reset(key, List.copyOf(lookup().shapesOf(limit).keySet()));
				logger.info("Rate limit '" + limit + "' reset for one client through the ratelimits endpoint ("
						+ deleted + ((deleted == 1) ? " state" : " states") + " deleted)");
				return new WebEndpointResponse<>(new Reset(limit, key, deleted));
			}
			catch (RuntimeException ex) {
				return storeFailed("reset", limit, ex);
			}
		});
	}

	/** Gives back one lease of the client's concurrency limit, in every shape of the limit. */
	private WebEndpointResponse<Object> release(String[] name, String client, String lease) {
		return forClient(name, client, (limit, key) -> {
			List<LimitDefinition> shapes = lookup().shapesOf(limit)
				.keySet()
				.stream()
				.filter((shape) -> !shape.algorithm().rate())
				.toList();
			if (shapes.isEmpty()) {
				return badRequest("lease applies to a concurrency limit; rate limit '" + limit + "' holds no leases");
			}
			try {
				boolean held = false;
				for (LimitDefinition shape : shapes) {
					held |= this.limiter.leases(key, shape).stream().anyMatch((holder) -> holder.id().equals(lease));
					this.limiter.settle(key, List.of(Settlement.release(shape.request().withLease(lease))));
				}
				logger.info("A lease of concurrency limit '" + limit + "' given back through the ratelimits endpoint"
						+ (held ? "" : " (it was not held)"));
				return new WebEndpointResponse<>(new Released(limit, key, lease, held));
			}
			catch (IllegalArgumentException ex) {
				return badRequest(ex.getMessage());
			}
			catch (RuntimeException ex) {
				return storeFailed("release a lease of", limit, ex);
			}
		});
	}

	/**
	 * {@code operation} on the limit the path names and the client key: 404 for an unknown limit, 400 for a client
	 * that is no client key.
	 */
	private WebEndpointResponse<Object> forClient(String[] name, String client,
			BiFunction<String, String, WebEndpointResponse<Object>> operation) {
		LimitLookup lookup = lookup();
		String limit = lookup.name(name);
		String key = ClientKeyResolver.canonicalKey(client);
		if (!lookup.known(limit)) {
			return notFound(lookup, limit);
		}
		if (!ClientKeyResolver.isClientKey(key)) {
			return new WebEndpointResponse<>(new Error("client must be a client key as the limiter resolves it: '"
					+ ClientKeyResolver.IP_PREFIX + "<address>' (a limit by IP address, or a missing key that fell back to it) or '"
					+ ClientKeyResolver.KEY_PREFIX + "<value>' (the value of a key expression), but was '" + key + "'"),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		return operation.apply(limit, key);
	}

	private static WebEndpointResponse<Object> notFound(LimitLookup lookup, String limit) {
		return new WebEndpointResponse<>(
				new Error("No rate limit is named '" + limit + "'; the limits are " + lookup.knownNames()),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	private static WebEndpointResponse<Object> storeFailed(String operation, String name, RuntimeException ex) {
		if (ex instanceof UnsupportedOperationException) {
			return new WebEndpointResponse<>(new Error(ex.getMessage()), 501);
		}
		logger.warn("The ratelimits endpoint could not " + operation + " rate limit '" + name + "': " + ex);
		return new WebEndpointResponse<>(new Error("The rate limiter's store did not answer: " + ex),
				WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
	}

	/** {@code TOKEN_BUCKET} as configured: {@code token-bucket}. */
	private static String term(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * What {@code GET /actuator/ratelimits} answers.
	 * @param store {@code redis} or {@code in-memory} ({@code ratelimit.store})
	 * @param plans the plans, or {@code null} when none are configured
	 * @param limits every limit, by name, then source, then plan, as overridden
	 * @param overrides the overrides stored, set through this endpoint, each saying whether it is in force here
	 */
	public record Limits(String store, @Nullable PlanSelection plans, List<Limit> limits, List<Overridden> overrides) {
	}

	/**
	 * An override stored: what it changes of a limit (or of its shape in one plan), each {@code null} where the
	 * configuration's value stands.
	 * @param plan the plan whose shape of the limit it changes, or {@code null} for the limit itself
	 * @param inForce whether this instance applies it; {@code false} when it is left aside here (a limit or plan
	 * this version of the application does not have, or a value it would make invalid), as logged
	 */
	public record Overridden(String name, @Nullable String plan, @Nullable String algorithm, @Nullable Long limit,
			@Nullable String window, @Nullable Long capacity, @Nullable String mode, @Nullable String failurePolicy,
			boolean inForce) {

		static Overridden of(String name, @Nullable String plan, LimitOverride override, boolean inForce) {
			return new Overridden(name, plan, (override.algorithm() != null) ? term(override.algorithm()) : null,
					override.limit(), (override.window() != null) ? override.window().toString() : null,
					override.capacity(), (override.mode() != null) ? term(override.mode()) : null,
					(override.failurePolicy() != null) ? term(override.failurePolicy()) : null, inForce);
		}

	}

	/**
	 * {@code ratelimit.plan.*} and the plans configured under {@code ratelimit.plans}, in their order.
	 * @param expression the plan expression, or {@code null} when every client has the default plan
	 */
	public record PlanSelection(@Nullable String expression, String defaultPlan, List<String> names) {
	}

	/**
	 * One limit as one source configures it, in one plan's shape.
	 * @param plan the plan whose shape this is, or {@code null} for a limit that is not planned
	 * @param algorithm {@code fixed-window}, {@code sliding-log}, {@code sliding-window-counter} or {@code token-bucket}
	 * @param window ISO-8601, such as {@code PT1M}
	 * @param key the client key expression, or {@code null} for the client's IP address
	 * @param failurePolicy {@code fail-open}, {@code fail-closed} or {@code fail-local}
	 * @param mode {@code enforce} or {@code shadow}
	 */
	public record Limit(String name, String source, @Nullable String plan, String algorithm, long limit, String window,
			long capacity, long cost, @Nullable String key, String failurePolicy, String mode) {
	}

	/** What {@code GET /actuator/ratelimits/{name}?client=...} answers: one state per shape of the limit. */
	public record ClientState(String name, String client, List<State> states) {
	}

	/**
	 * The client's state of one shape of a limit, as it stands.
	 * @param plan the plan whose shape this is, or {@code null} for a limit that is not planned
	 * @param remaining cost-1 requests the limit would admit at once
	 * @param resetAfterMs ms until the full allowance is back, with no other traffic
	 * @param moreAfterMs ms until {@code remaining} grows, 0 when the allowance is full
	 * @param requests what a request of each cost that the limit's sources configure would get now
	 * @param leases for a concurrency limit, the leases held, soonest expiry first; {@code null} for a rate limit
	 */
	public record State(@Nullable String plan, String algorithm, long limit, String window, long capacity, long remaining,
			long resetAfterMs, long moreAfterMs, List<Request> requests, @Nullable List<LeaseHolder> leases) {
	}

	/**
	 * A lease held of a concurrency limit.
	 * @param lease its id, which {@code DELETE ...?client=...&lease=<id>} gives back
	 * @param holder the instance whose call holds it ({@code <pid>@<host>}), as its id tells; {@code null} for a lease
	 * made by another caller
	 * @param expiresAfterMs ms until it expires unless its holder renews it (every third of the lease time while its
	 * call runs)
	 */
	public record LeaseHolder(String lease, @Nullable String holder, long expiresAfterMs) {

		static LeaseHolder of(HeldLease held) {
			int slash = held.id().lastIndexOf('/');
			return new LeaseHolder(held.id(), (slash > 0) ? held.id().substring(0, slash) : null, held.expiresAfterMs());
		}

	}

	/**
	 * What {@code DELETE /actuator/ratelimits/{name}?client=...&lease=<id>} answers.
	 * @param released whether the lease was held when it was given back
	 */
	public record Released(String name, String client, String lease, boolean released) {
	}

	/**
	 * What a request of one cost would get now.
	 * @param allowed whether it would be admitted
	 * @param retryAfterMs 0 when allowed, else ms until it would be admitted ({@code -1}: never)
	 * @param rateLimit the item of the {@code RateLimit} header field (IETF draft) that its response would carry;
	 * {@code null} for a shadow limit, whose responses carry none
	 */
	public record Request(long cost, boolean allowed, long retryAfterMs, @Nullable String rateLimit) {

		/** {@code retryAfterMs} of a request that can never be admitted (the JSON's -1). */
		public static final long NEVER = -1;

	}

	/** What {@code DELETE /actuator/ratelimits/{name}?client=...} answers: how many states existed and are gone. */
	public record Reset(String name, String client, int deleted) {
	}

	/** The body of a 400, 404, 501 or 503. */
	public record Error(@Nullable String error) {
	}

}
