package dev.ratelimit.spring.limits;

import dev.ratelimit.core.RateLimiter;
import org.jspecify.annotations.Nullable;

/**
 * What one override changes: a limit, by name; its shape in one plan; its shape for one client, in whichever plan the
 * client has or in one plan only. One override per target: a write replaces the target's earlier override whole.
 *
 * @param name the limit's name
 * @param plan the plan whose shape of the limit changes (for a client: the plan the client must have for the
 * override to apply), or {@code null}
 * @param clientTag the client's {@linkplain RateLimiter#clientTag tag}, never its id (an API key is a secret, and
 * the overrides are listed and kept in Redis), or {@code null} for every client
 */
public record OverrideTarget(String name, @Nullable String plan, @Nullable String clientTag) {

	/** The limit {@code name} itself. */
	public static OverrideTarget limit(String name) {
		return new OverrideTarget(name, null, null);
	}

	/** The shape of the limit {@code name} in {@code plan}, or the limit itself when {@code plan} is {@code null}. */
	public static OverrideTarget inPlan(@Nullable String plan, String name) {
		return new OverrideTarget(name, plan, null);
	}

	/**
	 * The shape of the limit {@code name} for one client, in every plan.
	 * @param clientKey the client key as the limiter resolves it for the limit: {@code key:<value>} for the value of
	 * its key expression, {@code ip:<address>} for a limit by IP address (as the endpoint's {@code client} reads it:
	 * {@code ClientKeyResolver.clientKeyOf})
	 */
	public static OverrideTarget client(String clientKey, String name) {
		return new OverrideTarget(name, null, RateLimiter.clientTag(clientKey));
	}

	/** This target for the client only while it has {@code plan}; a target without a client in {@code plan}. */
	public OverrideTarget inPlan(String plan) {
		return new OverrideTarget(this.name, plan, this.clientTag);
	}

}
