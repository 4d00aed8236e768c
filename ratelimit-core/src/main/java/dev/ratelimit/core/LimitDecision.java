package dev.ratelimit.core;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * The decision of one limit for one request.
 *
 * @param request the limit decided, with the cost and the shadow flag of the call
 * @param allowed this limit's own verdict (the request is admitted only if every enforced limit allows it)
 * @param retryAfterMs 0 when allowed; when denied, the smallest wait in ms after which the same request would be
 * admitted by this limit if nothing else arrives; empty when its cost can never fit ({@link #never()}), however long
 * it waits
 * @param allowance the limit's allowance as it stands after the decision
 * @param decidedAtMs the time in ms since the epoch the limit was decided at (the request's time, or the stored
 * time when the request's is earlier: rule 7 of docs/ALGORITHMS.md), which {@link RateLimiter#settle} needs to find
 * the units this decision reserved; -1 when unknown (a decision not made by a limiter)
 */
public record LimitDecision(LimitRequest request, boolean allowed, OptionalLong retryAfterMs, Allowance allowance,
		long decidedAtMs) {

	/**
	 * A limit's allowance for one client, as the rate-limit header fields describe it.
	 *
	 * @param remaining cost-1 requests this limit would still admit at once, with no other traffic; never negative
	 * @param resetAfterMs ms until this limit is back to a full allowance with no other traffic; never negative
	 * @param moreAfterMs ms until {@code remaining} grows with no other traffic (more quota is available: the
	 * {@code t} of the IETF {@code RateLimit} field, draft-ietf-httpapi-ratelimit-headers-10); 0 when the allowance
	 * is full
	 */
	public record Allowance(long remaining, long resetAfterMs, long moreAfterMs) {
	}

	/**
	 * @throws IllegalArgumentException if an allowed decision has a retry-after other than 0
	 */
	public LimitDecision {
		Objects.requireNonNull(request, "request must not be null");
		Objects.requireNonNull(retryAfterMs, "retryAfterMs must not be null");
		Objects.requireNonNull(allowance, "allowance must not be null");
		if (allowed && (retryAfterMs.isEmpty() || retryAfterMs.getAsLong() != 0)) {
			throw new IllegalArgumentException("an allowed decision has a retry-after of 0, not " + retryAfterMs);
		}
	}

	/** A decision whose time is unknown ({@code decidedAtMs} -1). */
	public LimitDecision(LimitRequest request, boolean allowed, OptionalLong retryAfterMs, Allowance allowance) {
		this(request, allowed, retryAfterMs, allowance, -1);
	}

	/** This decision, taken at {@code decidedAtMs}. */
	public LimitDecision at(long decidedAtMs) {
		return new LimitDecision(this.request, this.allowed, this.retryAfterMs, this.allowance, decidedAtMs);
	}

	/** An admitting decision: retry-after 0. */
	public static LimitDecision allowed(LimitRequest request, Allowance allowance) {
		return new LimitDecision(request, true, OptionalLong.of(0), allowance);
	}

	/** A denial that waiting {@code retryAfterMs} would lift. */
	public static LimitDecision denied(LimitRequest request, long retryAfterMs, Allowance allowance) {
		return new LimitDecision(request, false, OptionalLong.of(retryAfterMs), allowance);
	}

	/** A denial of a cost that can never fit: no retry-after. */
	public static LimitDecision never(LimitRequest request, Allowance allowance) {
		return new LimitDecision(request, false, OptionalLong.empty(), allowance);
	}

	/** Whether this request can never be admitted by this limit, however long it waits: no retry-after. */
	public boolean never() {
		return this.retryAfterMs.isEmpty();
	}

	/** {@link Allowance#remaining()}: cost-1 requests this limit would still admit at once. */
	public long remaining() {
		return this.allowance.remaining();
	}

	/** {@link Allowance#resetAfterMs()}: ms until a full allowance. */
	public long resetAfterMs() {
		return this.allowance.resetAfterMs();
	}

	/** {@link Allowance#moreAfterMs()}: ms until {@code remaining} grows. */
	public long moreAfterMs() {
		return this.allowance.moreAfterMs();
	}

}
