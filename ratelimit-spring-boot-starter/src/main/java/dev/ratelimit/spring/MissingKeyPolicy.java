package dev.ratelimit.spring;

/**
 * What happens when a key expression yields null or an empty string. Never a shared "null" bucket.
 */
public enum MissingKeyPolicy {

	/** Limit the request by the client's IP address, as if no key expression were given. */
	CLIENT_IP,

	/** Answer 400 Bad Request with a problem body. */
	REJECT

}
