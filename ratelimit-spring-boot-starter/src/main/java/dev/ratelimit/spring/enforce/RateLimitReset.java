package dev.ratelimit.spring.enforce;

import dev.ratelimit.core.RateLimiter;

/**
 * Resets every client's state of every limit at once, the bean {@code rateLimitReset}: the limiter's store (counts
 * and leases: in memory, or the state keys under {@code ratelimit.key-prefix} on Redis, never another key), and what
 * this instance keeps beside it, its remembered denials, its waiting lines' last denials and its fail-local state.
 * For tests that start each case afresh ({@code docs/TESTING.md}), and for the {@code ratelimits} endpoint's
 * {@code DELETE /actuator/ratelimits}. Other instances keep their remembered denials for at most
 * {@code ratelimit.denials.max-age}, as after a reset of one client. Overrides set through the endpoint are
 * configuration, not state, and stay.
 */
public final class RateLimitReset {

	private final RateLimiter limiter;

	private final PermitWaiter waits;

	/**
	 * @param limiter the limiter whose store is reset
	 * @param waits the waits for a permit, whose lines are reset, and whose enforcer's remembered denials and
	 * fail-local state are forgotten
	 */
	public RateLimitReset(RateLimiter limiter, PermitWaiter waits) {
		this.limiter = limiter;
		this.waits = waits;
	}

	/**
	 * Deletes every client's state; the instance's own memory of them is forgotten even if the store fails.
	 * @return how many states existed and were deleted (on Redis, how many keys)
	 * @throws UnsupportedOperationException when the limiter cannot (an application's own limiter without
	 * {@link RateLimiter#resetAll}; a Redis Cluster)
	 * @throws RuntimeException from the limiter's Redis client when Redis does not answer in time
	 */
	public long resetAll() {
		try {
			return this.limiter.resetAll();
		}
		finally {
			// after the store: a denial remembered while the store was reset was decided on the state before it
			this.waits.enforcer().forgetLocalState();
			this.waits.reset();
		}
	}

}
