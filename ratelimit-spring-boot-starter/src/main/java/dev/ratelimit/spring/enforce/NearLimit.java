package dev.ratelimit.spring.enforce;

import dev.ratelimit.core.LimitDecision;

/**
 * Whether a client is near a limit: more than {@code ratio} of the limit's budget used, the budget being its
 * capacity (the limit, or a token bucket's size; for a concurrency limit, the calls in flight allowed). With a limit
 * of 10 and a ratio of 0.8 ({@code ratelimit.metrics.near-limit-ratio}'s default), a client that has 1 or 0 units left is near it: the 9th and 10th requests of a window.
 * One rule for the {@code ratelimit.near.limit} counter (admitted decisions) and the {@code ratelimits} endpoint's
 * view of a client. Envoy's rate limit service counts {@code near_limit} alike, at 80 % by default.
 */
public final class NearLimit {

	private final double ratio;

	/**
	 * @param ratio the share of the budget above which a client is near the limit: greater than 0, less than 1 (at 1
	 * no client would ever be near: more than the whole budget is never used)
	 * @throws IllegalArgumentException for a ratio out of that range
	 */
	public NearLimit(double ratio) {
		if (!(ratio > 0 && ratio < 1)) {
			throw new IllegalArgumentException("The near-limit ratio must be greater than 0 and less than 1, such as 0.8"
					+ " (at 1 no request would ever count: more than the whole budget is never used)");
		}
		this.ratio = ratio;
	}

	public double ratio() {
		return this.ratio;
	}

	/**
	 * Whether the client's state after {@code decision} (an admission, or a peek that consumed nothing) leaves more
	 * than the ratio of the budget used: {@code capacity - remaining > ratio × capacity}.
	 */
	public boolean test(LimitDecision decision) {
		long budget = decision.request().definition().capacity();
		return budget - decision.remaining() > this.ratio * budget;
	}

}
