package dev.ratelimit.spring;

/**
 * Whether a limit refuses what it denies.
 */
public enum LimitMode {

	/** A denial is answered 429 Too Many Requests. */
	ENFORCE,

	/**
	 * Shadow mode (a dry run): the limit is decided and counted in Redis and in metrics exactly as if enforced, but a
	 * denial lets the request through, with a log line (itself rate-limited) and the {@code shadow-denied} outcome. Its
	 * decisions send no rate-limit header fields, since a client would slow down for a limit that is not enforced; and
	 * a Redis failure never refuses a request for it, whatever its failure policy.
	 */
	SHADOW

}
