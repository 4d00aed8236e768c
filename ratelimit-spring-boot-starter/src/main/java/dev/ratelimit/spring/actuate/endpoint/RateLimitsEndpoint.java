package dev.ratelimit.spring.actuate.endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.RateLimitHeaderWriter;
import dev.ratelimit.spring.enforce.DenialCache;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.LimitRegistry;
import dev.ratelimit.spring.limits.PlanSelector;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
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
 * {@code ratelimit.denials.max-age}.</li>
 * </ul>
 * {@code client} is the client key as the limiter resolves it: {@code ip:<address>} for a limit by IP address (or a
 * missing key that fell back to it; an IPv6 address in any form, {@link ClientKeyResolver#canonicalIp}), {@code key:<value>}
 * for the value of a key expression. Answers 404 for a name that
 * no limit has, 400 for a client in neither form, 503 when the store does not answer in time
 * ({@code ratelimit.redis.timeout}). Off the web until exposed, as every Actuator endpoint but health
 * ({@code management.endpoints.web.exposure.include=ratelimits}); {@code management.endpoint.ratelimits.access=read-only}
 * allows the reads without the reset.
 */
@WebEndpoint(id = "ratelimits")
public class RateLimitsEndpoint {

	private static final Log logger = LogFactory.getLog(RateLimitsEndpoint.class);

	private final RateLimiter limiter;

	private final LimitLookup lookup;

	private final PlanSelector plans;

	private final String store;

	private final DenialCache denials;

	public RateLimitsEndpoint(RateLimiter limiter, LimitRegistry names, PlanSelector plans, String store, DenialCache denials) {
		this.limiter = limiter;
		this.denials = denials;
		this.lookup = new LimitLookup(names, plans);
		this.plans = plans;
		this.store = store;
	}

	@ReadOperation
	public Limits limits() {
		List<Limit> limits = new ArrayList<>();
		for (ConfiguredLimit limit : this.lookup.all()) {
			for (ConfiguredLimit shaped : this.lookup.shapes(limit)) {
				LimitDefinition definition = shaped.request().definition();
				limits.add(new Limit(definition.name(), limit.source(), shaped.plan(), term(definition.algorithm()),
						definition.limit(), definition.window().toString(), definition.capacity(), shaped.request().cost(),
						(limit.key() != null) ? limit.key().getExpressionString() : null, term(limit.failurePolicy()),
						limit.shadow() ? "shadow" : "enforce"));
			}
		}
		return new Limits(this.store, this.plans.names().isEmpty() ? null
				: new PlanSelection(this.plans.expression(), this.plans.defaultPlan(), List.copyOf(this.plans.names())),
				limits);
	}

	@ReadOperation
	public WebEndpointResponse<Object> state(@Selector(match = Match.ALL_REMAINING) String[] name, String client) {
		return forClient(name, client, (limit, key) -> {
			try {
				List<State> states = new ArrayList<>();
				for (Map.Entry<LimitDefinition, @Nullable String> shape : this.lookup.shapesOf(limit).entrySet()) {
					states.add(state(key, shape.getKey().request().withShadow(this.lookup.shadow(limit)), shape.getValue(),
							this.lookup.costsOf(limit)));
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
				definition.capacity(), peeked.remaining(), peeked.resetAfterMs(), peeked.moreAfterMs(), requests);
	}

	@DeleteOperation
	public WebEndpointResponse<Object> reset(@Selector(match = Match.ALL_REMAINING) String[] name, String client) {
		return forClient(name, client, (limit, key) -> {
			// This instance's remembered denials of the client end now, even if the reset fails (it may still reach
			// Redis); other instances' within ratelimit.denials.max-age.
			this.denials.forget(key);
			try {
				int deleted = this.limiter.reset(key, List.copyOf(this.lookup.shapesOf(limit).keySet()));
				logger.info("Rate limit '" + limit + "' reset for one client through the ratelimits endpoint ("
						+ deleted + ((deleted == 1) ? " state" : " states") + " deleted)");
				return new WebEndpointResponse<>(new Reset(limit, key, deleted));
			}
			catch (RuntimeException ex) {
				return storeFailed("reset", limit, ex);
			}
		});
	}

	/**
	 * {@code operation} on the limit the path names and the client key: 404 for an unknown limit, 400 for a client
	 * that is no client key.
	 */
	private WebEndpointResponse<Object> forClient(String[] name, String client,
			BiFunction<String, String, WebEndpointResponse<Object>> operation) {
		String limit = this.lookup.name(name);
		String key = ClientKeyResolver.canonicalKey(client);
		if (!this.lookup.known(limit)) {
			return new WebEndpointResponse<>(
					new Error("No rate limit is named '" + limit + "'; the limits are " + this.lookup.knownNames()),
					WebEndpointResponse.STATUS_NOT_FOUND);
		}
		if (!ClientKeyResolver.isClientKey(key)) {
			return new WebEndpointResponse<>(new Error("client must be a client key as the limiter resolves it: '"
					+ ClientKeyResolver.IP_PREFIX + "<address>' (a limit by IP address, or a missing key that fell back to it) or '"
					+ ClientKeyResolver.KEY_PREFIX + "<value>' (the value of a key expression), but was '" + key + "'"),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		return operation.apply(limit, key);
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
	 * @param limits every limit, by name, then source, then plan
	 */
	public record Limits(String store, @Nullable PlanSelection plans, List<Limit> limits) {
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
	 */
	public record State(@Nullable String plan, String algorithm, long limit, String window, long capacity, long remaining,
			long resetAfterMs, long moreAfterMs, List<Request> requests) {
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
