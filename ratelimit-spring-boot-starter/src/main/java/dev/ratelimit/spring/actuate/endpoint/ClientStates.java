package dev.ratelimit.spring.actuate.endpoint;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.ClientState;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Error;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.LeaseHolder;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Released;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Request;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Reset;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.ResetAll;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.State;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.DenialCache;
import dev.ratelimit.spring.enforce.NearLimit;
import dev.ratelimit.spring.RateLimitReset;
import dev.ratelimit.spring.enforce.RateLimitHeaderWriter;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.limits.Terms;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.ratelimit.spring.actuate.endpoint.Responses.badRequest;
import static dev.ratelimit.spring.actuate.endpoint.Responses.notFound;
import static dev.ratelimit.spring.actuate.endpoint.Responses.storeFailed;

/**
 * The endpoint's operations on clients' state: one client's state of a limit read without consuming anything, reset,
 * or one lease given back, each for a limit the path names and a client key, or 404 and 400; and every client's state
 * reset at once.
 */
final class ClientStates {

	private static final Log logger = LogFactory.getLog(RateLimitsEndpoint.class);

	private final RateLimiter limiter;

	private final LimitConfigurations configurations;

	private final DenialCache denials;

	private final NearLimit nearLimit;

	private final RateLimitReset reset;

	ClientStates(RateLimiter limiter, LimitConfigurations configurations, DenialCache denials, NearLimit nearLimit,
			RateLimitReset reset) {
		this.reset = reset;
		this.limiter = limiter;
		this.configurations = configurations;
		this.denials = denials;
		this.nearLimit = nearLimit;
	}

	/** The client's state of every shape of the limit. */
	WebEndpointResponse<Object> state(String[] name, String client) {
		return forClient(name, client, (limit, key) -> {
			try {
				List<State> states = new ArrayList<>();
				LimitLookup lookup = new LimitLookup(this.configurations.current());
				for (Map.Entry<LimitDefinition, @Nullable String> shape : lookup.shapesOf(limit, key).entrySet()) {
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
		return new State(plan, Terms.of(definition.algorithm()), definition.limit(), definition.window().toString(),
				LimitLookup.capacity(definition), peeked.remaining(), this.nearLimit.test(peeked),
				peeked.resetAfterMs(), peeked.moreAfterMs(), requests,
				definition.algorithm().rate() ? null
						: this.limiter.leases(key, definition).stream().map(LeaseHolder::of).toList());
	}

	/**
	 * Deletes the client's state of the limit; with {@code lease}, gives back that one lease of a concurrency limit
	 * (a call whose holder is gone, say) and leaves the others.
	 */
	WebEndpointResponse<Object> reset(String[] name, String client,
			@Nullable String lease) {
		if (lease != null) {
			return release(name, client, lease);
		}
		return forClient(name, client, (limit, key) -> {
			// This instance's remembered denials of the client end now, even if the reset fails (it may still reach
			// Redis); other instances' within ratelimit.denials.max-age.
			this.denials.forget(key);
			try {
				int deleted = this.limiter.reset(key, allShapes(limit, key));
				logger.info("Rate limit '" + limit + "' reset for one client through the ratelimits endpoint ("
						+ deleted + ((deleted == 1) ? " state" : " states") + " deleted)");
				return new WebEndpointResponse<>(new Reset(limit, key, deleted));
			}
			catch (RuntimeException ex) {
				return storeFailed("reset", limit, ex);
			}
		});
	}

	/** Deletes every client's state, and this instance's memory of them ({@link RateLimitReset}). */
	WebEndpointResponse<Object> resetAll() {
		try {
			long deleted = this.reset.resetAll();
			logger.info("Every client's rate limit state reset through the ratelimits endpoint (" + deleted
					+ ((deleted == 1) ? " state" : " states") + " deleted)");
			return new WebEndpointResponse<>(new ResetAll(deleted));
		}
		catch (RuntimeException ex) {
			return storeFailed("reset every client's state", ex);
		}
	}

	/** Gives back one lease of the client's concurrency limit, in every shape of the limit. */
	private WebEndpointResponse<Object> release(String[] name, String client, String lease) {
		return forClient(name, client, (limit, key) -> {
			List<LimitDefinition> shapes = allShapes(limit, key)
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
	 * Every shape of the limit the client can have state in: the configured ones, and those its overrides give it
	 * (its state from before an override that changed the algorithm or window is still there).
	 */
	private List<LimitDefinition> allShapes(String limit, String key) {
		LimitLookup lookup = new LimitLookup(this.configurations.current());
		Set<LimitDefinition> shapes = new LinkedHashSet<>(lookup.shapesOf(limit).keySet());
		shapes.addAll(lookup.shapesOf(limit, key).keySet());
		return List.copyOf(shapes);
	}

	/**
	 * {@code operation} on the limit the path names and the client key: 404 for an unknown limit, 400 for a client
	 * that is no client key.
	 */
	private WebEndpointResponse<Object> forClient(String[] name, String client,
			BiFunction<String, String, WebEndpointResponse<Object>> operation) {
		LimitLookup lookup = new LimitLookup(this.configurations.current());
		String limit = lookup.name(name);
		String key = ClientKeyResolver.canonicalKey(client);
		if (!lookup.known(limit)) {
			return notFound(lookup, limit);
		}
		if (!ClientKeyResolver.isClientKey(key)) {
			return new WebEndpointResponse<>(new Error("client must be a client key as the limiter resolves it: '"
					+ ClientKeyResolver.IP_PREFIX + "<address>' (a limit by IP address, or a missing key that fell back to it) or '"
					+ ClientKeyResolver.KEY_PREFIX + "<value>' (the value of a key expression) or '"
					+ ClientKeyResolver.ALL_CALLS + "' (a limit without key, called outside requests), but was '" + key
					+ "'"),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		return operation.apply(limit, key);
	}

}
