package dev.ratelimit.spring.actuate.endpoint;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Error;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Overridden;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.limits.LimitOverride;
import dev.ratelimit.spring.limits.LimitOverrides;
import dev.ratelimit.spring.limits.OverrideTarget;
import dev.ratelimit.spring.limits.OverridesSync;
import dev.ratelimit.spring.limits.Terms;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.ratelimit.spring.actuate.endpoint.Responses.badRequest;
import static dev.ratelimit.spring.actuate.endpoint.Responses.notFound;
import static dev.ratelimit.spring.actuate.endpoint.Responses.storeFailed;

/** The endpoint's write operation: an override checked, stored for every instance, or undone; and the list of them. */
final class OverrideOperation {

	private static final Log logger = LogFactory.getLog(RateLimitsEndpoint.class);

	private final LimitConfigurations configurations;

	private final OverridesSync overrides;

	OverrideOperation(LimitConfigurations configurations, OverridesSync overrides) {
		this.configurations = configurations;
		this.overrides = overrides;
	}

	/** The overrides stored, each saying whether it is in force here. */
	List<Overridden> overrides() {
		LimitOverrides inForce = this.configurations.current().overrides();
		List<Overridden> list = new ArrayList<>();
		this.overrides.stored()
			.targets()
			.forEach((target, override) -> list.add(overridden(target, override, inForce.get(target) != null)));
		return list;
	}

	private static Overridden overridden(OverrideTarget target, LimitOverride override, boolean inForce) {
		return new Overridden(target.name(), target.plan(), target.clientTag(), term(override.algorithm()),
				override.limit(), (override.window() != null) ? override.window().toString() : null,
				override.capacity(), term(override.period()), (override.zone() != null) ? override.zone().getId() : null,
				term(override.firstDayOfWeek()), term(override.mode()), term(override.failurePolicy()), inForce);
	}

	private static @Nullable String term(@Nullable Enum<?> value) {
		return (value != null) ? Terms.of(value) : null;
	}

	/**
	 * Sets the override of a limit, of its shape in one plan or of its shape for one client (in every plan or in one),
	 * in place of its earlier override (one override per target: fields it does not give are those of the shape below
	 * it), on every instance; or undoes it. Only values, never code: a key, a rule's paths or a plan expression come
	 * from the application's configuration sources alone.
	 * @param limitPath the limit's name, as the state's path reads it (not {@code name}: a body's {@code name} would
	 * take the path's place)
	 * @return 200 with the overrides stored; 400 naming the field or the property when the body cannot be honoured or
	 * the change would make a limit invalid, which leaves every limit as it was; 404 for an unknown limit or plan (an
	 * override left aside can still be undone); 503 when the store does not answer (the change may still have reached
	 * it: read the overrides before trying again)
	 */
	WebEndpointResponse<Object> override(String[] limitPath, OverrideRequest body) {
		if (body.key() != null || body.paths() != null || body.expression() != null) {
			return badRequest("The ratelimits endpoint changes a limit's algorithm, limit, window, capacity, period,"
					+ " mode and failure policy, and a plan's or a client's shape of it; keys, rules and plan"
					+ " expressions come only from the application's configuration (they are expressions, and the"
					+ " endpoint runs no code)");
		}
		if (body.usage() != null) {
			// the opt-in keeps client keys in clear text, and a period changed mid-period would leave the usage
			// recorded so far unread: a decision of the application's configuration, reviewed with it
			return badRequest("'usage' is not changed through the ratelimits endpoint: whether a limit records its"
					+ " clients' usage, keeping their keys in clear text, and per which period, comes only from the"
					+ " application's configuration (the usage of a limit with usage: true follows its own period,"
					+ " which an override may change)");
		}
		if (body.name() != null) {
			return badRequest("The limit is the one the path names (/actuator/ratelimits/{name}); the body gives"
					+ " what changes");
		}
		String client = body.client();
		if (client != null && client.isBlank()) {
			return badRequest("'client' is empty: give what the limit's key expression yields for the client (its API"
					+ " key, say), or its client key (key:<value>, ip:<address>)");
		}
		LimitLookup lookup = new LimitLookup(this.configurations.current());
		String limitName = lookup.name(limitPath);
		OverrideTarget target = target(body, limitName);
		boolean undoingStored = body.undoing() && this.overrides.stored().get(target) != null;
		WebEndpointResponse<Object> unknown = undoingStored ? null : unknown(lookup, limitName, body);
		if (unknown != null) {
			return unknown;
		}
		LimitOverride override;
		try {
			override = body.override();
		}
		catch (IllegalArgumentException ex) {
			return badRequest(ex.getMessage());
		}
		WebEndpointResponse<Object> refused = refused(body, override);
		if (refused != null) {
			return refused;
		}
		return write(target, body.undoing() ? null : override);
	}

	private static OverrideTarget target(OverrideRequest body, String limitName) {
		String client = body.client();
		if (client == null) {
			return OverrideTarget.inPlan(body.plan(), limitName);
		}
		OverrideTarget forClient = OverrideTarget.client(ClientKeyResolver.clientKeyOf(client), limitName);
		String plan = body.plan();
		return (plan != null) ? forClient.inPlan(plan) : forClient;
	}

	/** 404 for a limit or plan the application does not have, 400 for a client's plan of a limit without plans. */
	private static @Nullable WebEndpointResponse<Object> unknown(LimitLookup lookup, String limitName,
			OverrideRequest body) {
		if (!lookup.known(limitName)) {
			return notFound(lookup, limitName);
		}
		String plan = body.plan();
		if (plan == null) {
			return null;
		}
		if (!lookup.plans().names().contains(plan)) {
			return new WebEndpointResponse<>(new Error("No plan is named '" + plan + "'; the plans are "
					+ String.join(", ", lookup.plans().names())), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		if (body.client() != null && !lookup.planned(limitName)) {
			return badRequest("'plan' " + plan + " does not shape rate limit '" + limitName + "': no plan of"
					+ " ratelimit.plans gives it a shape, so it has none per plan; give the client's override without"
					+ " plan, and it applies whatever the client's plan");
		}
		return null;
	}

	/** 400 for a body that sets nothing, more than undo, or what its target does not take. */
	private static @Nullable WebEndpointResponse<Object> refused(OverrideRequest body, LimitOverride override) {
		if (body.undoing()) {
			return override.isEmpty() ? null
					: badRequest("undo removes the override whole; give it alone, or the values without undo");
		}
		if (override.isEmpty()) {
			return badRequest("Nothing to change: give algorithm, limit, window, capacity, period, zone,"
					+ " firstDayOfWeek, mode or failurePolicy, or undo=true");
		}
		String limitOnly = body.limitOnlyField();
		if (limitOnly != null && (body.plan() != null || body.client() != null)) {
			return badRequest("'" + limitOnly + "' is the limit's own: a " + ((body.client() != null) ? "client's"
					: "plan's") + " override changes the limit's shape (algorithm, limit, window, capacity, period,"
					+ " zone, firstDayOfWeek); set " + limitOnly + " without " + ((body.client() != null) ? "client"
							: "plan"));
		}
		return null;
	}

	private WebEndpointResponse<Object> write(OverrideTarget target, @Nullable LimitOverride override) {
		try {
			this.overrides.override(target, override);
		}
		catch (OverridesSync.InvalidOverrideException ex) {
			// exactly what startup would say of the same values in application.yml
			return badRequest(ex.getMessage());
		}
		catch (RuntimeException ex) {
			return storeFailed("change", target.name(), ex);
		}
		// the client by its tag: its id may be a secret
		logger.info("Rate limit '" + target.name() + "'" + ((target.plan() != null) ? " in plan '" + target.plan() + "'" : "")
				+ ((target.clientTag() != null) ? " for client " + target.clientTag() : "")
				+ ((override != null) ? " overridden (" + override.encode() + ")" : ": override undone")
				+ " through the ratelimits endpoint");
		return new WebEndpointResponse<>(overrides());
	}

}
