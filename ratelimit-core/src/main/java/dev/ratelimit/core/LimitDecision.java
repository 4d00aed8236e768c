package dev.ratelimit.core;

/**
 * The decision of one limit for one request.
 *
 * @param limit the limit decided
 * @param allowed this limit's own verdict (the request is admitted only if every limit applied allows it)
 * @param remaining cost-1 requests this limit would still admit at once, with no other traffic; never negative
 * @param retryAfterMs 0 when allowed; when denied, the smallest wait in ms after which the same request would be
 * admitted by this limit if nothing else arrives; {@link #NEVER} when its cost can never fit
 * @param resetAfterMs ms until this limit is back to a full allowance with no other traffic; never negative
 * @param moreAfterMs ms until {@code remaining} grows with no other traffic (more quota is available: the {@code t}
 * of the IETF {@code RateLimit} field, draft-ietf-httpapi-ratelimit-headers-10); 0 when the allowance is full
 */
public record LimitDecision(LimitDefinition limit, boolean allowed, long remaining, long retryAfterMs,
		long resetAfterMs, long moreAfterMs) {

	/** {@code retryAfterMs} of a request whose cost exceeds the limit (or capacity): it will never be admitted. */
	public static final long NEVER = -1;

	/** Whether this request can never be admitted by this limit, however long it waits. */
	public boolean never() {
		return this.retryAfterMs == NEVER;
	}

}
