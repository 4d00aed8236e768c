package dev.ratelimit.core;

import dev.ratelimit.core.MemoryState.Verdict;

/** fixed_window.lua in memory: the window index {@code w} counted and its count {@code c}. */
final class MemoryFixedWindow extends MemoryState {

	private long w;

	private long c;

	@Override
	Verdict decide(long now, long clockNow, LimitRequest request) {
		LimitDefinition definition = request.definition();
		long limit = definition.limit();
		long window = definition.windowMs();
		long cost = request.cost();
		long at = decisionTime(now, definition);
		long k = Math.floorDiv(at, window);
		long count = countOf(k);
		long windowEnd = (k + 1) * window;
		long start = at;
		long index = k;
		long counted = count;
		Wait reset = (n) -> wait(n, limit, limit, windowEnd, start);
		if (cost > limit) {
			return Verdict.never(limit - count, reset.forCost(count),
					more(count, limit, windowEnd, start));
		}
		if (count + cost > limit) {
			return Verdict.denied(limit - count, wait(count, cost, limit, windowEnd, start), reset.forCost(count),
					more(count, limit, windowEnd, start));
		}
		return Verdict.allowed(limit - count, reset.forCost(count), more(count, limit, windowEnd, start), (verdict) -> {
			long n = counted + cost;
			this.w = index;
			this.c = n;
			expireAfter(windowEnd - now + TTL_MARGIN_MS, clockNow);
			verdict.after(limit - n, reset.forCost(n), more(n, limit, windowEnd, start));
		});
	}

	/** A lagging clock is decided at the start of the stored window: time never goes backwards. */
	@Override
	long decisionTime(long now, LimitDefinition limit) {
		long window = limit.windowMs();
		return (this.stored && this.w > Math.floorDiv(now, window)) ? this.w * window : now;
	}

	/** The count of window {@code k}: 0 unless it is the stored one. */
	private long countOf(long k) {
		return (this.stored && this.w == k) ? this.c : 0;
	}

	@Override
	LimitDecision.Allowance settle(long now, long clockNow, LimitDefinition limit, long delta, long reservedAt) {
		long window = limit.windowMs();
		long at = decisionTime(now, limit);
		long k = Math.floorDiv(at, window);
		long count = countOf(k);
		long n = count;
		if (delta > 0) {
			n = Math.min(count + delta, maxUnits(window));
		}
		else if (delta < 0 && Math.floorDiv(reservedAt, window) == k) {
			n = nonNegative(count + delta);
		}
		long windowEnd = (k + 1) * window;
		if (n != count) {
			this.w = k;
			this.c = n;
			expireAfter(windowEnd - now + TTL_MARGIN_MS, clockNow);
		}
		return allowance(limit.limit() - n, wait(n, limit.limit(), limit.limit(), windowEnd, at),
				more(n, limit.limit(), windowEnd, at));
	}

	/** The wait until a request of cost {@code c} fits with {@code n} units counted: the next window. */
	private static long wait(long n, long c, long limit, long windowEnd, long at) {
		if (n + c <= limit) {
			return 0;
		}
		return windowEnd - at;
	}

	private static long more(long n, long limit, long windowEnd, long at) {
		return moreAfter(limit - n, limit, (c) -> wait(n, c, limit, windowEnd, at));
	}

	@Override
	public String toString() {
		return "fw[w=" + this.w + ", c=" + this.c + ", deadline=" + this.deadline + "]";
	}

}
