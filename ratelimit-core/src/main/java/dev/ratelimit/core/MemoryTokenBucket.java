package dev.ratelimit.core;

/**
 * token_bucket.lua in memory: {@code t}, the tokens scaled by the window (a refill of {@code limit} scaled units per
 * ms, so no fraction is ever rounded), and {@code ts}, the time of the last refill.
 */
final class MemoryTokenBucket extends MemoryState {

	private long t;

	private long ts;

	@Override
	Verdict decide(long now, long clockNow, LimitRequest request) {
		LimitDefinition definition = request.definition();
		long capacity = definition.capacity();
		long cost = request.cost();
		long at = decisionTime(now, definition);
		Bucket bucket = new Bucket(tokensAt(at, definition), definition.windowMs(), definition.limit());
		if (cost > capacity) {
			return Verdict.never(bucket.available(), bucket.waitFor(capacity), bucket.more(capacity));
		}
		if (bucket.waitFor(cost) > 0) {
			return Verdict.denied(bucket.available(), bucket.waitFor(cost), bucket.waitFor(capacity), bucket.more(capacity));
		}
		return Verdict.allowed(bucket.available(), bucket.waitFor(capacity), bucket.more(capacity), (verdict) -> {
			Bucket left = bucket.minus(cost);
			long resetAfter = left.waitFor(capacity);
			this.t = left.t();
			this.ts = at;
			expireAfter(at - now + resetAfter + TTL_MARGIN_MS, clockNow);
			verdict.after(left.available(), resetAfter, left.more(capacity));
		});
	}

	/** A refill stored ahead of the clock (it stepped back) is decided at its time. */
	@Override
	long decisionTime(long now, LimitDefinition limit) {
		return this.stored ? Math.max(now, this.ts) : now;
	}

	/** A charge takes tokens even below 0 (debt); a refund gives them back up to the capacity. */
	@Override
	LimitDecision.Allowance settle(long now, long clockNow, LimitDefinition limit, long delta, long reservedAt) {
		long window = limit.windowMs();
		long at = decisionTime(now, limit);
		long tokens = tokensAt(at, limit);
		long left = Math.max(Math.min(tokens - delta * window, limit.capacity() * window), -maxUnits(window) * window);
		Bucket after = new Bucket(left, window, limit.limit());
		long resetAfter = after.waitFor(limit.capacity());
		if (left != tokens) {
			this.t = left;
			this.ts = at;
			expireAfter(at - now + resetAfter + TTL_MARGIN_MS, clockNow);
		}
		return allowance(after.available(), resetAfter, after.more(limit.capacity()));
	}

	/** The scaled tokens refilled by {@code at}: a full bucket when none is stored. */
	private long tokensAt(long at, LimitDefinition definition) {
		long full = definition.capacity() * definition.windowMs();
		// Compare times rather than multiply: elapsed × limit could leave the exact range after a long idle.
		if (!this.stored || at - this.ts >= ceilDiv(full - this.t, definition.limit())) {
			return full;
		}
		return this.t + (at - this.ts) * definition.limit();
	}

	@Override
	public String toString() {
		return "tb[t=" + this.t + ", ts=" + this.ts + ", deadline=" + this.deadline + "]";
	}

	/** {@code t} tokens scaled by the window, refilled at {@code limit} scaled units per ms. */
	private record Bucket(long t, long window, long limit) {

		Bucket minus(long cost) {
			return new Bucket(this.t - cost * this.window, this.window, this.limit);
		}

		/** Whole tokens: cost-1 requests admitted at once. */
		long available() {
			return Math.floorDiv(this.t, this.window);
		}

		/** The wait until a request of cost {@code c} fits: ceil((c × W - t) / L), 0 when it does. */
		long waitFor(long c) {
			if (this.t >= c * this.window) {
				return 0;
			}
			return ceilDiv(c * this.window - this.t, this.limit);
		}

		long more(long capacity) {
			return moreAfter(available(), capacity, this::waitFor);
		}

	}

}
