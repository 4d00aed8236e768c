package dev.ratelimit.core;

import java.util.Objects;

/**
 * One client's usage of a limit in one period.
 *
 * @param clientId the client id as given to {@link RateLimiter#tryAcquire(String, java.util.List)}, in clear text
 * @param units the units its admitted requests and settlements took in the period, beyond the limit too
 */
public record ClientUsage(String clientId, long units) {

	public ClientUsage {
		Objects.requireNonNull(clientId, "clientId must not be null");
	}

}
