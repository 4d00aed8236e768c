package dev.ratelimit.spring.actuate.endpoint;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Error;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Overridden;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.limits.LimitOverride;
import dev.ratelimit.spring.limits.LimitOverrides;
import dev.ratelimit.spring.limits.OverridesSync;
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
	 * @param limitPath the limit's name, as the state's path reads it (not {@code name}: a body's {@code name} would
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
	WebEndpointResponse<Object> override(String[] limitPath,
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
		LimitLookup lookup = new LimitLookup(this.configurations.current());
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

}
