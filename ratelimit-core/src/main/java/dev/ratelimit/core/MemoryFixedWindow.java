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
		long at = now;
		long k = Math.floorDiv(at, window);
		long count = 0;
		if (this.stored) {
			if (this.w > k) {
				// a lagging clock is decided at the start of the stored window: time never goes backwards
				k = this.w;
				at = this.w * window;
				count = this.c;
			}
			else if (this.w == k) {
				count = this.c;
			}
		}
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
