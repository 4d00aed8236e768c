package dev.ratelimit.spring;

/**
 * Which rate-limit header fields limited responses carry. {@code Retry-After} is sent on every 429 whatever the
 * style.
 */
public enum HeaderStyle {

	/**
	 * {@code RateLimit-Policy: "name";q=10;w=60} and {@code RateLimit: "name";r=3;t=7}, one list item per limit
	 * (draft-ietf-httpapi-ratelimit-headers-10).
	 */
	IETF,

	/** {@code RateLimit-Limit}, {@code RateLimit-Remaining}, {@code RateLimit-Reset} (seconds), as in early drafts. */
	LEGACY,

	/** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset} (seconds). */
	X_RATELIMIT,

	/** No rate-limit fields. */
	NONE

}
