package dev.ratelimit.core;

/**
 * sliding_window_counter.lua in memory: {@code w}, the index of the current window, {@code c}, its count, and
 * {@code p}, the count of window {@code w - 1}.
 */
final class MemorySlidingWindowCounter extends MemoryState {

	private long w;

	private long c;

	private long p;

	@Override
	Verdict decide(long now, long clockNow, LimitRequest request) {
		LimitDefinition definition = request.definition();
		long limit = definition.limit();
		long window = definition.windowMs();
		long cost = request.cost();
		long at = now;
		long k = Math.floorDiv(at, window);
		long cur = 0;
		long prev = 0;
		if (this.stored) {
			if (this.w > k) {
				k = this.w;
				at = this.w * window;
			}
			if (this.w == k) {
				cur = this.c;
				prev = this.p;
			}
			else if (this.w == k - 1) {
				prev = this.c;
			}
		}
		long r = at - k * window;
		long index = k;
		long current = cur;
		long previous = prev;
		long estimate = estimate(cur, prev, window, r);
		if (cost > limit) {
			return Verdict.never(limit - estimate, wait(limit, window, r, cur, prev, limit),
					more(limit, window, r, cur, prev));
		}
		if (estimate + cost > limit) {
			return Verdict.denied(limit - estimate, wait(limit, window, r, cur, prev, cost),
					wait(limit, window, r, cur, prev, limit), more(limit, window, r, cur, prev));
		}
		return Verdict.allowed(limit - estimate, wait(limit, window, r, cur, prev, limit),
				more(limit, window, r, cur, prev), (verdict) -> {
					long n = current + cost;
					this.w = index;
					this.c = n;
					this.p = previous;
					expireAfter((index + 2) * window - now + TTL_MARGIN_MS, clockNow);
					verdict.after(limit - estimate(n, previous, window, r), wait(limit, window, r, n, previous, limit),
							more(limit, window, r, n, previous));
				});
	}

	/** floor of the estimate {@code n + p × (W - r) / W}, in exact integers. */
	private static long estimate(long n, long prev, long window, long r) {
		return n + Math.floorDiv(prev * (window - r), window);
	}

	@Override
	public String toString() {
		return "swc[w=" + this.w + ", c=" + this.c + ", p=" + this.p + ", deadline=" + this.deadline + "]";
	}

	private static long more(long limit, long window, long r, long n, long prev) {
		return moreAfter(limit - estimate(n, prev, window, r), limit, (c) -> wait(limit, window, r, n, prev, c));
	}

	/**
	 * swc_wait of sliding_window_counter.lua: the smallest wait after which a request of cost {@code c <= limit} is
	 * admitted, with counts {@code cur} and {@code prev} at offset {@code r} of the current window, in closed form.
	 */
	private static long wait(long limit, long window, long r, long cur, long prev, long c) {
		if (cur + Math.floorDiv(prev * (window - r), window) + c <= limit) {
			return 0;
		}
		long a = limit - cur - c + 1;
		if (a >= 1 && prev > 0) {
			long t = window - r - Math.floorDiv(a * window - 1, prev);
			if (t < 1) {
				t = 1;
			}
			if (t < window - r) {
				return t;
			}
		}
		long rNext = 0;
		if (cur > 0) {
			rNext = nonNegative(window - Math.floorDiv((limit - c + 1) * window - 1, cur));
		}
		return window - r + rNext;
	}

}
