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
		long limit = definition.limit();
		long window = definition.windowMs();
		long capacity = definition.capacity();
		long cost = request.cost();
		long full = capacity * window;
		long at = now;
		long tokens;
		if (!this.stored) {
			tokens = full;
		}
		else {
			if (this.ts > at) {
				at = this.ts;
			}
			// Compare times rather than multiply: elapsed × limit could leave the exact range after a long idle.
			if (at - this.ts >= ceilDiv(full - this.t, limit)) {
				tokens = full;
			}
			else {
				tokens = this.t + (at - this.ts) * limit;
			}
		}
		long refilledAt = at;
		long before = tokens;
		if (cost > capacity) {
			return Verdict.never(Math.floorDiv(tokens, window), wait(tokens, capacity, window, limit),
					more(tokens, capacity, window, limit));
		}
		if (tokens < cost * window) {
			return Verdict.denied(Math.floorDiv(tokens, window), wait(tokens, cost, window, limit),
					wait(tokens, capacity, window, limit), more(tokens, capacity, window, limit));
		}
		return Verdict.allowed(Math.floorDiv(tokens, window), wait(tokens, capacity, window, limit),
				more(tokens, capacity, window, limit), (verdict) -> {
					long left = before - cost * window;
					long resetAfter = wait(left, capacity, window, limit);
					this.t = left;
					this.ts = refilledAt;
					expireAfter(refilledAt - now + resetAfter + TTL_MARGIN_MS, clockNow);
					verdict.after(Math.floorDiv(left, window), resetAfter, more(left, capacity, window, limit));
				});
	}

	/** The wait until a request of cost {@code c} fits with {@code t} scaled tokens: ceil((c × W - t) / L). */
	private static long wait(long t, long c, long window, long limit) {
		if (t >= c * window) {
			return 0;
		}
		return ceilDiv(c * window - t, limit);
	}

	private static long more(long t, long capacity, long window, long limit) {
		return moreAfter(Math.floorDiv(t, window), capacity, (c) -> wait(t, c, window, limit));
	}

	@Override
	public String toString() {
		return "tb[t=" + this.t + ", ts=" + this.ts + ", deadline=" + this.deadline + "]";
	}

}
