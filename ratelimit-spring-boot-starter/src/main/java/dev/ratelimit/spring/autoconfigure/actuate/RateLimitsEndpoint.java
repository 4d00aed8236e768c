package dev.ratelimit.spring.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.autoconfigure.ClientKeys;
import dev.ratelimit.spring.autoconfigure.ConfiguredLimit;
import dev.ratelimit.spring.autoconfigure.LimitNames;
import dev.ratelimit.spring.autoconfigure.Plans;
import dev.ratelimit.spring.autoconfigure.RateLimitHeaders;
import dev.ratelimit.spring.autoconfigure.RememberedDenials;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
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
 * for a request of cost 1 {@code allowed} and {@code retryAfterMs}; with {@code rateLimit}, the item of the
 * {@code RateLimit} header field that a response would carry now.</li>
 * <li>{@code DELETE /actuator/ratelimits/{name}?client=key:k-42}: deletes the client's state of the limit, every shape
 * at once ({@link RateLimiter#reset}); the client has its full allowance again. The denials this instance
 * remembers of the client are forgotten at once; other instances forget theirs within
 * {@code ratelimit.denials.max-age}.</li>
 * </ul>
 * {@code client} is the client key as the limiter resolves it: {@code ip:<address>} for a limit by IP address (or a
 * missing key that fell back to it), {@code key:<value>} for the value of a key expression. Answers 404 for a name that
 * no limit has, 400 for a client in neither form, 503 when the store does not answer in time
 * ({@code ratelimit.redis.timeout}). Off the web until exposed, as every Actuator endpoint but health
 * ({@code management.endpoints.web.exposure.include=ratelimits}); {@code management.endpoint.ratelimits.access=read-only}
 * allows the reads without the reset.
 */
@WebEndpoint(id = "ratelimits")
public class RateLimitsEndpoint {

	private static final Log logger = LogFactory.getLog(RateLimitsEndpoint.class);

	private final RateLimiter limiter;

	private final LimitNames names;

	private final Plans plans;

	private final String store;

	private final RememberedDenials denials;

	RateLimitsEndpoint(RateLimiter limiter, LimitNames names, Plans plans, String store, RememberedDenials denials) {
		this.limiter = limiter;
		this.denials = denials;
		this.names = names;
		this.plans = plans;
		this.store = store;
	}

	@ReadOperation
	public Limits limits() {
		List<Limit> limits = new ArrayList<>();
		for (ConfiguredLimit limit : this.names.all()) {
			for (ConfiguredLimit shaped : shapes(limit)) {
				LimitDefinition definition = shaped.definition();
				limits.add(new Limit(definition.name(), limit.source(), shaped.plan(), term(definition.algorithm()),
						definition.limit(), definition.window().toString(), definition.capacity(), definition.cost(),
						(limit.key() != null) ? limit.key().getExpressionString() : null, term(limit.failurePolicy()),
						limit.shadow() ? "shadow" : "enforce"));
			}
		}
		PlanSelection plans = this.plans.names().isEmpty() ? null
				: new PlanSelection(this.plans.expression(), this.plans.defaultPlan(), List.copyOf(this.plans.names()));
		return new Limits(this.store, plans, limits);
	}

	@ReadOperation
	public WebEndpointResponse<Object> state(@Selector String name, String client) {
		WebEndpointResponse<Object> invalid = invalid(name, client);
		if (invalid != null) {
			return invalid;
		}
		try {
			List<State> states = new ArrayList<>();
			for (Map.Entry<LimitDefinition, String> shape : shapesOf(name).entrySet()) {
				LimitDecision peeked = this.limiter.peek(client, shape.getKey());
				LimitDefinition definition = shape.getKey();
				states.add(new State(shape.getValue(), term(definition.algorithm()), definition.limit(),
						definition.window().toString(), definition.capacity(), peeked.allowed(), peeked.remaining(),
						peeked.retryAfterMs(), peeked.resetAfterMs(), peeked.moreAfterMs(),
						RateLimitHeaders.stateItem(peeked)));
			}
			return new WebEndpointResponse<>(new ClientState(name, client, states));
		}
		catch (RuntimeException ex) {
			return storeFailed("read", name, ex);
		}
	}

	@DeleteOperation
	public WebEndpointResponse<Object> reset(@Selector String name, String client) {
		WebEndpointResponse<Object> invalid = invalid(name, client);
		if (invalid != null) {
			return invalid;
		}
		try {
			int deleted = this.limiter.reset(client, List.copyOf(shapesOf(name).keySet()));
			// this instance's remembered denials of the client end now; other instances' within ratelimit.denials.max-age
			this.denials.forget(client);
			logger.info("Rate limit '" + name + "' reset for one client through the ratelimits endpoint (" + deleted
					+ ((deleted == 1) ? " state" : " states") + " deleted)");
			return new WebEndpointResponse<>(new Reset(name, client, deleted));
		}
		catch (RuntimeException ex) {
			return storeFailed("reset", name, ex);
		}
	}

	/** 404 for an unknown limit, 400 for a client that is no client key; {@code null} when both are fine. */
	private WebEndpointResponse<Object> invalid(String name, String client) {
		if (this.names.all().stream().noneMatch((limit) -> limit.name().equals(name))) {
			return new WebEndpointResponse<>(new Error("No rate limit is named '" + name + "'; the limits are "
					+ String.join(", ", new TreeSet<>(this.names.all().stream().map(ConfiguredLimit::name).toList()))),
					WebEndpointResponse.STATUS_NOT_FOUND);
		}
		boolean ip = client.startsWith(ClientKeys.IP_PREFIX) && client.length() > ClientKeys.IP_PREFIX.length();
		boolean key = client.startsWith(ClientKeys.KEY_PREFIX) && client.length() > ClientKeys.KEY_PREFIX.length();
		if (!ip && !key) {
			return new WebEndpointResponse<>(new Error("client must be a client key as the limiter resolves it: '"
					+ ClientKeys.IP_PREFIX + "<address>' (a limit by IP address, or a missing key that fell back to it) or '"
					+ ClientKeys.KEY_PREFIX + "<value>' (the value of a key expression), but was '" + client + "'"),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		return null;
	}

	private static WebEndpointResponse<Object> storeFailed(String operation, String name, RuntimeException ex) {
		if (ex instanceof UnsupportedOperationException) {
			return new WebEndpointResponse<>(new Error(ex.getMessage()), 501);
		}
		logger.warn("The ratelimits endpoint could not " + operation + " rate limit '" + name + "': " + ex);
		return new WebEndpointResponse<>(new Error("The rate limiter's store did not answer: " + ex),
				WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
	}

	/**
	 * Every shape the limit {@code name} can have, with cost 1 and enforced (a peek's cost is that of the request
	 * asked about; the mode changes no state), and the plan that gives it ({@code null}: the limit's own).
	 */
	private Map<LimitDefinition, String> shapesOf(String name) {
		Map<LimitDefinition, String> shapes = new LinkedHashMap<>();
		for (ConfiguredLimit limit : this.names.all()) {
			if (limit.name().equals(name)) {
				for (ConfiguredLimit shaped : shapes(limit)) {
					shapes.putIfAbsent(shaped.definition().withCost(1).withShadow(false), shaped.plan());
				}
			}
		}
		return shapes;
	}

	/** The limit as each plan shapes it, in the plans' order; the limit itself when it is not planned. */
	private List<ConfiguredLimit> shapes(ConfiguredLimit limit) {
		if (!limit.planned()) {
			return List.of(limit);
		}
		return this.plans.names().stream().map((plan) -> limit.byPlan().get(plan)).toList();
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
	public record Limits(String store, PlanSelection plans, List<Limit> limits) {
	}

	/**
	 * {@code ratelimit.plan.*} and the plans configured under {@code ratelimit.plans}, in their order.
	 * @param expression the plan expression, or {@code null} when every client has the default plan
	 */
	public record PlanSelection(String expression, String defaultPlan, List<String> names) {
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
	public record Limit(String name, String source, String plan, String algorithm, long limit, String window,
			long capacity, long cost, String key, String failurePolicy, String mode) {
	}

	/** What {@code GET /actuator/ratelimits/{name}?client=...} answers: one state per shape of the limit. */
	public record ClientState(String name, String client, List<State> states) {
	}

	/**
	 * The client's state of one shape of a limit, as it stands.
	 * @param plan the plan whose shape this is, or {@code null} for a limit that is not planned
	 * @param allowed whether a request of cost 1 would be admitted now
	 * @param remaining cost-1 requests the limit would admit at once
	 * @param retryAfterMs 0 when allowed, else ms until a request of cost 1 would be admitted
	 * @param resetAfterMs ms until the full allowance is back, with no other traffic
	 * @param moreAfterMs ms until {@code remaining} grows, 0 when the allowance is full
	 * @param rateLimit the item of the {@code RateLimit} header field (IETF draft) that a response would carry now
	 */
	public record State(String plan, String algorithm, long limit, String window, long capacity, boolean allowed,
			long remaining, long retryAfterMs, long resetAfterMs, long moreAfterMs, String rateLimit) {
	}

	/** What {@code DELETE /actuator/ratelimits/{name}?client=...} answers: how many states existed and are gone. */
	public record Reset(String name, String client, int deleted) {
	}

	/** The body of a 400, 404, 501 or 503. */
	public record Error(String error) {
	}

}
