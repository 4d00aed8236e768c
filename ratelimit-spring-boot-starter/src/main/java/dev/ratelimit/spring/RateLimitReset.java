package dev.ratelimit.spring;

/**
 * Resets every client's state of every limit at once, the starter's bean {@code rateLimitReset}: the limiter's store
 * (counts and leases: in memory, or the state keys under {@code ratelimit.key-prefix} on Redis, never another key),
 * and what this instance keeps beside it, its remembered denials, its waiting lines' last denials and its fail-local
 * state. For tests that start each case afresh ({@code docs/TESTING.md}); the {@code ratelimits} endpoint's
 * {@code DELETE /actuator/ratelimits} does the same. Other instances keep their remembered denials for at most
 * {@code ratelimit.denials.max-age}, as after a reset of one client. Overrides set through the endpoint are
 * configuration, not state, and stay.
 */
public interface RateLimitReset {

	/**
	 * Deletes every client's state; this instance's memory of it is forgotten even if the store fails.
	 * @return how many states existed and were deleted (on Redis, how many keys)
	 * @throws UnsupportedOperationException when the limiter cannot: a Redis Cluster, whose keys no single script
	 * call reaches, or an application's own limiter without {@code RateLimiter.resetAll}
	 * @throws RuntimeException from the limiter's Redis client when Redis does not answer in time
	 */
	long resetAll();

}
