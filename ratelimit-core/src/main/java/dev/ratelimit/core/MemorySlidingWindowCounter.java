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
		long at = decisionTime(now, definition);
		long index = Math.floorDiv(at, window);
		Counts counts = new Counts(limit, window, at - index * window, current(index), previous(index));
		long remaining = limit - counts.estimate();
		if (cost > limit) {
			return Verdict.never(remaining, counts.waitFor(limit), counts.more());
		}
		if (counts.estimate() + cost > limit) {
			return Verdict.denied(remaining, counts.waitFor(cost), counts.waitFor(limit), counts.more());
		}
		long stored = index;
		return Verdict.allowed(remaining, counts.waitFor(limit), counts.more(), (verdict) -> {
			Counts after = counts.plus(cost);
			this.w = stored;
			this.c = after.cur();
			this.p = after.prev();
			expireAfter((stored + 2) * window - now + TTL_MARGIN_MS, clockNow);
			verdict.after(limit - after.estimate(), after.waitFor(limit), after.more());
		});
	}

	/** A stored window ahead of the clock (it stepped back) is decided at its start. */
	@Override
	long decisionTime(long now, LimitDefinition limit) {
		long window = limit.windowMs();
		long index = Math.floorDiv(now, window);
		if (this.stored && this.w > index) {
			index = this.w;
		}
		return Math.max(now, index * window);
	}

	@Override
	LimitDecision.Allowance settle(long now, long clockNow, LimitDefinition limit, long delta, long reservedAt) {
		long window = limit.windowMs();
		long at = decisionTime(now, limit);
		long index = Math.floorDiv(at, window);
		long cur = current(index);
		long prev = previous(index);
		long c = cur;
		long p = prev;
		if (delta > 0) {
			c = Math.min(cur + delta, maxUnits(window));
		}
		else if (delta < 0) {
			long reserved = Math.floorDiv(reservedAt, window);
			if (reserved == index) {
				c = nonNegative(cur + delta);
			}
			else if (reserved == index - 1) {
				p = nonNegative(prev + delta);
			}
		}
		if (c != cur || p != prev) {
			this.w = index;
			this.c = c;
			this.p = p;
			expireAfter((index + 2) * window - now + TTL_MARGIN_MS, clockNow);
		}
		Counts after = new Counts(limit.limit(), window, at - index * window, c, p);
		return allowance(limit.limit() - after.estimate(), after.waitFor(limit.limit()), after.more());
	}

	/** The stored count of window {@code index}: 0 unless it is the stored one. */
	private long current(long index) {
		return (this.stored && this.w == index) ? this.c : 0;
	}

	/** The stored count of window {@code index - 1}: kept beside the current one, or the stored window itself. */
	private long previous(long index) {
		if (!this.stored) {
			return 0;
		}
		if (this.w == index) {
			return this.p;
		}
		return (this.w == index - 1) ? this.c : 0;
	}

	@Override
	public String toString() {
		return "swc[w=" + this.w + ", c=" + this.c + ", p=" + this.p + ", deadline=" + this.deadline + "]";
	}

	/**
	 * The counts of a limit of {@code limit} per {@code window} ms at offset {@code r} ms of the current window:
	 * {@code cur} in it, {@code prev} in the one before.
	 */
	private record Counts(long limit, long window, long r, long cur, long prev) {

		Counts plus(long cost) {
			return new Counts(this.limit, this.window, this.r, this.cur + cost, this.prev);
		}

		/** floor of the estimate {@code cur + prev × (W - r) / W}, in exact integers. */
		long estimate() {
			return this.cur + Math.floorDiv(this.prev * (this.window - this.r), this.window);
		}

		long more() {
			return moreAfter(this.limit - estimate(), this.limit, this::waitFor);
		}

		/**
		 * swc_wait of sliding_window_counter.lua: the smallest wait after which a request of cost {@code c <= limit}
		 * is admitted, in closed form.
		 */
		long waitFor(long c) {
			if (estimate() + c <= this.limit) {
				return 0;
			}
			long a = this.limit - this.cur - c + 1;
			if (a >= 1 && this.prev > 0) {
				long t = this.window - this.r - Math.floorDiv(a * this.window - 1, this.prev);
				if (t < 1) {
					t = 1;
				}
				if (t < this.window - this.r) {
					return t;
				}
			}
			long rNext = 0;
			if (this.cur > 0) {
				rNext = nonNegative(this.window - Math.floorDiv((this.limit - c + 1) * this.window - 1, this.cur));
			}
			return this.window - this.r + rNext;
		}

	}

}
