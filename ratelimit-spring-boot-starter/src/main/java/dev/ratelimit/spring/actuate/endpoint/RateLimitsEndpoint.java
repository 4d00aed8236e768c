package dev.ratelimit.spring.actuate.endpoint;

import java.util.List;

import dev.ratelimit.core.HeldLease;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.DenialCache;
import dev.ratelimit.spring.enforce.NearLimit;
import dev.ratelimit.spring.RateLimitReset;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.limits.OverridesSync;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
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
 * <li>{@code GET /actuator/ratelimits/{name}/usage?period=current&page=0&size=100}: for a limit that records usage,
 * a page of the units each client used in the current (or {@code previous}) period, debt included, largest first
 * ({@link RateLimiter#usage}): every client, without knowing the keys beforehand.</li>
 * <li>{@code DELETE /actuator/ratelimits/{name}?client=key:k-42}: deletes the client's state of the limit, every shape
 * at once ({@link RateLimiter#reset}); the client has its full allowance again. The denials this instance
 * remembers of the client are forgotten at once; other instances forget theirs within
 * {@code ratelimit.denials.max-age}. For a concurrency limit, the state lists the leases held and their holders, and
 * {@code &lease=<id>} gives back that one lease only.</li>
 * <li>{@code DELETE /actuator/ratelimits}: deletes every client's state of every limit ({@link RateLimitReset}: on
 * Redis the state keys under {@code ratelimit.key-prefix}, never another key), and forgets this instance's remembered
 * denials and waiting lines; every client has its full allowance again. For tests and starting over; overrides
 * stay.</li>
 * <li>{@code POST /actuator/ratelimits/{name}} with a JSON body ({@code {"limit": 200}}, {@code {"plan": "pro",
 * "limit": 200}}, {@code {"client": "k-42", "limit": 500}}, {@code {"undo": true}}): overrides the limit's shape, mode
 * or failure policy, or a plan's or a client's shape of it, on every instance ({@link #override}).</li>
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

	private final LimitListing listing;

	private final OverrideOperation overrides;

	private final ClientStates clients;

	private final UsageReads usage;

	/**
	 * @param configurations the limits in force
	 * @param overrides where overrides are checked, stored and applied
	 * @param store {@code redis} or {@code in-memory}
	 * @param denials the denials this instance remembers, forgotten for a client that is reset
	 * @param nearLimit when a client's state shows it near a limit
	 * @param reset every client's state at once
	 */
	public RateLimitsEndpoint(RateLimiter limiter, LimitConfigurations configurations, OverridesSync overrides,
			String store, DenialCache denials, NearLimit nearLimit, RateLimitReset reset) {
		this.overrides = new OverrideOperation(configurations, overrides);
		this.listing = new LimitListing(configurations, store, this.overrides);
		this.clients = new ClientStates(limiter, configurations, denials, nearLimit, reset);
		this.usage = new UsageReads(limiter, configurations);
	}

	/** Every limit, in each plan's shape, as overridden; the plans; the overrides stored. */
	@ReadOperation
	public Limits limits() {
		return this.listing.limits();
	}

	/**
	 * Sets the override of a limit, of its shape in one plan, or of its shape for one client (in every plan, or in
	 * one), in place of its configured values and of its earlier override (one override per target: fields it does
	 * not give are those of the shape below it), on every instance; or undoes it. Only values, never code: a key, a
	 * rule's paths or a plan expression come from the application's configuration sources alone. A field that this
	 * operation does not take is refused ({@link #unknownFields()}).
	 * @param limitPath the limit's name, as {@link #state} reads it (not {@code name}: a body's {@code name} would
	 * take the path's place)
	 * @param plan the plan whose shape of the limit changes; with {@code client}, the plan in which the client's
	 * override applies; {@code null} for the limit itself, or the client in every plan
	 * @param client the client whose shape of the limit changes: what the limit's key expression yields for it (an
	 * API key, a tenant id), or a client key as {@link #state} takes it ({@code ip:<address>}); kept and listed by
	 * its tag ({@link dev.ratelimit.core.RateLimiter#clientTag}), never in clear
	 * @param period {@code day}, {@code week}, {@code month} or {@code year}: a fixed window of calendar periods
	 * @param zone the period's time zone ({@code Europe/Berlin})
	 * @param firstDayOfWeek the day a week starts on ({@code sunday})
	 * @param undo {@code true} to remove the override, alone: the shape below it is back
	 * @param name refused: the limit is the one the path names
	 * @param key refused: keys are expressions, which the endpoint never takes
	 * @param paths refused: rules come from the configuration
	 * @param expression refused: expressions come from the configuration
	 * @param usage refused: whether and per which period a limit records usage comes from the configuration
	 * @return 200 with the overrides stored; 400 naming the field or the property (nothing changes); 404 for an
	 * unknown limit or plan (an override left aside can still be undone); 503 when the store does not answer
	 */
	@WriteOperation
	public WebEndpointResponse<Object> override(@Selector(match = Match.ALL_REMAINING) String[] limitPath,
			@Nullable String plan, @Nullable String client, @Nullable String algorithm, @Nullable Long limit,
			@Nullable String window, @Nullable Long capacity, @Nullable String period, @Nullable String zone,
			@Nullable String firstDayOfWeek, @Nullable String mode, @Nullable String failurePolicy,
			@Nullable Boolean undo, @Nullable String name, @Nullable String key, @Nullable String paths,
			@Nullable String expression, @Nullable String usage) {
		return this.overrides.override(limitPath, new OverrideRequest(plan, client, algorithm, limit, window,
				capacity, period, zone, firstDayOfWeek, mode, failurePolicy, undo, name, key, paths, expression,
				usage));
	}

	/**
	 * Refuses a write whose body has a field that {@link #override} does not take ({@code limt}), naming it, rather
	 * than let Actuator ignore it and change something else or nothing: an {@code OperationInvokerAdvisor} for
	 * Actuator's discoverer, which applies it to this endpoint's write operation alone.
	 */
	public static OperationInvokerAdvisor unknownFields() {
		return new KnownFields();
	}

	/**
	 * The client's state of every shape of the limit, read without consuming anything; without {@code client}, on a
	 * path ending in {@code /usage}, a page of the limit's usage.
	 * @param client the client key; required but for a usage read
	 * @param period for a usage read: {@code current} (by default) or {@code previous}
	 * @param page for a usage read: the page, from 0
	 * @param size for a usage read: clients per page, 1 to 1,000 (100 by default)
	 */
	@ReadOperation
	public WebEndpointResponse<Object> state(@Selector(match = Match.ALL_REMAINING) String[] name,
			@Nullable String client, @Nullable String period, @Nullable Integer page, @Nullable Integer size) {
		if (client == null && UsageReads.reads(name)) {
			return this.usage.read(name, period, page, size);
		}
		if (client == null) {
			return Responses.badRequest("client is required: the client key whose state to read ('ip:<address>' or"
					+ " 'key:<value>'); a path ending in /" + UsageReads.SEGMENT + " reads the limit's usage");
		}
		return this.clients.state(name, client);
	}

	/**
	 * Deletes the client's state of the limit; with {@code lease}, gives back that one lease of a concurrency limit
	 * (a call whose holder is gone, say) and leaves the others.
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> reset(@Selector(match = Match.ALL_REMAINING) String[] name, String client,
			@Nullable String lease) {
		return this.clients.reset(name, client, lease);
	}

	/**
	 * Deletes every client's state of every limit, and this instance's memory of them.
	 * @return 200 with how many states were deleted; 501 on a store that cannot (a Redis Cluster, an application's
	 * own limiter); 503 when the store does not answer (some states may be gone)
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> resetAll() {
		return this.clients.resetAll();
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
	 * An override stored: what it changes of a limit (or of its shape in one plan, or for one client), each
	 * {@code null} where the shape below it stands.
	 * @param plan the plan whose shape of the limit it changes (with {@code client}: in which it applies to the
	 * client), or {@code null}
	 * @param client the client's tag ({@link dev.ratelimit.core.RateLimiter#clientTag}), as the client's Redis keys
	 * carry it ({@code rl:{tag}:...}), or {@code null} for every client
	 * @param inForce whether this instance applies it; {@code false} when it is left aside here (a limit or plan
	 * this version of the application does not have, or a value it would make invalid), as logged
	 */
	public record Overridden(String name, @Nullable String plan, @Nullable String client, @Nullable String algorithm,
			@Nullable Long limit, @Nullable String window, @Nullable Long capacity, @Nullable String period,
			@Nullable String zone, @Nullable String firstDayOfWeek, @Nullable String mode,
			@Nullable String failurePolicy, boolean inForce) {
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
	 * @param capacity the token bucket's size; {@code null} for the other algorithms
	 * @param algorithm {@code fixed-window}, {@code sliding-log}, {@code sliding-window-counter} or {@code token-bucket}
	 * @param window ISO-8601, such as {@code PT1M}
	 * @param key the client key expression, or {@code null} for the client's IP address
	 * @param failurePolicy {@code fail-open}, {@code fail-closed} or {@code fail-local}
	 * @param mode {@code enforce} or {@code shadow}
	 * @param usage the period the limit records its clients' usage per ({@code month}, {@code day in Europe/Berlin}),
	 * read at {@code /actuator/ratelimits/{name}/usage}; {@code null} when it records none
	 */
	public record Limit(String name, String source, @Nullable String plan, String algorithm, long limit, String window,
			@Nullable Long capacity, long cost, @Nullable String key, String failurePolicy, String mode,
			@Nullable String usage) {
	}

	/**
	 * What {@code GET /actuator/ratelimits/{name}/usage} answers: one page of the limit's usage in one period.
	 * @param period {@code current} or {@code previous}
	 * @param periodStart the period's first instant (ISO-8601)
	 * @param periodEnd the period's end, exclusive (ISO-8601)
	 * @param clients how many clients the period records (the overflow aside)
	 * @param overflowUnits units of clients left unrecorded at {@code ratelimit.usage.max-clients}
	 * @param entries the page's clients, by units, largest first
	 */
	public record UsagePage(String name, String period, String periodStart, String periodEnd, long clients,
			long overflowUnits, int page, int size, List<ClientUnits> entries) {
	}

	/**
	 * One client's usage in a period.
	 * @param client the client key, in clear text ({@code key:<value>}, {@code ip:<address>})
	 * @param units the units its requests took, beyond the limit too (settled costs)
	 */
	public record ClientUnits(String client, long units) {
	}

	/** What {@code GET /actuator/ratelimits/{name}?client=...} answers: one state per shape of the limit. */
	public record ClientState(String name, String client, List<State> states) {
	}

	/**
	 * The client's state of one shape of a limit, as it stands.
	 * @param plan the plan whose shape this is, or {@code null} for a limit that is not planned
	 * @param capacity the token bucket's size; {@code null} for the other algorithms
	 * @param remaining cost-1 requests the limit would admit at once
	 * @param nearLimit whether the client has used more than {@code ratelimit.metrics.near-limit-ratio} of the
	 * budget (the capacity: the limit, or a token bucket's size), as the {@code ratelimit.near.limit} counter counts
	 * @param resetAfterMs ms until the full allowance is back, with no other traffic
	 * @param moreAfterMs ms until {@code remaining} grows, 0 when the allowance is full
	 * @param requests what a request of each cost that the limit's sources configure would get now
	 * @param leases for a concurrency limit, the leases held, soonest expiry first; {@code null} for a rate limit
	 */
	public record State(@Nullable String plan, String algorithm, long limit, String window, @Nullable Long capacity,
			long remaining, boolean nearLimit, long resetAfterMs, long moreAfterMs, List<Request> requests, @Nullable List<LeaseHolder> leases) {
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

	/** What {@code DELETE /actuator/ratelimits} answers: how many states existed and are gone. */
	public record ResetAll(long deleted) {
	}

	/** The body of a 400, 404, 501 or 503. */
	public record Error(@Nullable String error) {
	}

}
