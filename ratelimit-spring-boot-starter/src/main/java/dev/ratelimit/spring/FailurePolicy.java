package dev.ratelimit.spring;

/**
 * What a limit does when Redis cannot decide a request (unreachable, timed out, erroring).
 */
public enum FailurePolicy {

	/** The request proceeds without rate-limit fields; a WARN log (itself rate-limited) and a metric record it. */
	FAIL_OPEN,

	/** The request is answered 503 Service Unavailable with {@code Retry-After} and a problem body. */
	FAIL_CLOSED,

	/**
	 * The limit is decided by this instance alone, in memory, with its share of the limit
	 * ({@code ratelimit.fail-local.instances}), and the response carries the rate-limit fields of that local
	 * decision. After a failure, Redis is not asked again for {@code ratelimit.fail-local.probe-interval}.
	 */
	FAIL_LOCAL

}
