package dev.ratelimit.core;

import java.util.Arrays;

/**
 * sliding_log.lua in memory. The script keeps one sorted-set member per admitted unit; here units admitted at one
 * time are one run ({@code score}, {@code units}), ascending by score, which decides identically: every question the
 * script asks the set (its newest score, its size, the score of the unit at a position) has the same answer.
 */
final class MemorySlidingLog extends MemoryState {

	private long[] scores = new long[4];

	private long[] units = new long[4];

	/** Runs live at {@code [head, tail)}. */
	private int head;

	private int tail;

	private long total;

	@Override
	Verdict decide(long now, long clockNow, LimitRequest request) {
		LimitDefinition definition = request.definition();
		long limit = definition.limit();
		long window = definition.windowMs();
		long cost = request.cost();
		long time = decisionTime(now, definition);
		trim(time - window);
		long count = this.total;
		if (cost > limit) {
			return Verdict.never(limit - count, reset(count, limit, window, time),
					more(count, limit, window, time));
		}
		if (count + cost > limit) {
			return Verdict.denied(limit - count, wait(count, cost, limit, window, time),
					reset(count, limit, window, time), more(count, limit, window, time));
		}
		return Verdict.allowed(limit - count, reset(count, limit, window, time), more(count, limit, window, time),
				(verdict) -> {
					add(time, cost);
					expireAfter(time + window - now + TTL_MARGIN_MS, clockNow);
					long n = count + cost;
					verdict.after(limit - n, reset(n, limit, window, time), more(n, limit, window, time));
				});
	}

	/** The newest score, when later than {@code now}: time never goes backwards. */
	@Override
	long decisionTime(long now, LimitDefinition limit) {
		return (this.tail > this.head && this.scores[this.tail - 1] > now) ? this.scores[this.tail - 1] : now;
	}

	/** ZREMRANGEBYSCORE -inf {@code upTo}: dropping entries that no longer count is no consumption. */
	private void trim(long upTo) {
		while (this.tail > this.head && this.scores[this.head] <= upTo) {
			this.total -= this.units[this.head];
			this.head++;
		}
		emptied();
	}

	/** A sorted set left with nothing is deleted by Redis, key and TTL: no state until the next admission. */
	private void emptied() {
		if (this.head == this.tail) {
			this.stored = false;
			this.head = 0;
			this.tail = 0;
		}
	}

	@Override
	LimitDecision.Allowance settle(long now, long clockNow, LimitDefinition limit, long delta, long reservedAt) {
		long window = limit.windowMs();
		long at = decisionTime(now, limit);
		trim(at - window);
		if (delta > 0) {
			// entries beyond the limit at `at` change nothing a client sees: at most limit are added
			add(at, Math.min(delta, limit.limit()));
			expireAfter(at + window - now + TTL_MARGIN_MS, clockNow);
		}
		else if (delta < 0 && reservedAt > at - window) {
			removeAt(reservedAt, -delta);
		}
		long n = this.total;
		return allowance(limit.limit() - n, reset(n, limit.limit(), window, at), more(n, limit.limit(), window, at));
	}

	/** ZREM of up to {@code units} of the units at {@code score}; the key's TTL is kept. */
	private void removeAt(long score, long units) {
		for (int i = this.head; i < this.tail; i++) {
			if (this.scores[i] == score) {
				long removed = Math.min(units, this.units[i]);
				this.units[i] -= removed;
				this.total -= removed;
				if (this.units[i] == 0) {
					System.arraycopy(this.scores, i + 1, this.scores, i, this.tail - i - 1);
					System.arraycopy(this.units, i + 1, this.units, i, this.tail - i - 1);
					this.tail--;
					emptied();
				}
				return;
			}
		}
	}

	/** ZADD of {@code cost} units at {@code at}, the newest score or later. */
	private void add(long at, long cost) {
		this.total += cost;
		if (this.tail > this.head && this.scores[this.tail - 1] == at) {
			this.units[this.tail - 1] += cost;
			return;
		}
		if (this.tail == this.scores.length) {
			int size = this.tail - this.head;
			if (size * 2 <= this.scores.length) {
				System.arraycopy(this.scores, this.head, this.scores, 0, size);
				System.arraycopy(this.units, this.head, this.units, 0, size);
			}
			else {
				this.scores = Arrays.copyOfRange(this.scores, this.head, this.head + 2 * this.scores.length);
				this.units = Arrays.copyOfRange(this.units, this.head, this.head + 2 * this.units.length);
			}
			this.head = 0;
			this.tail = size;
		}
		this.scores[this.tail] = at;
		this.units[this.tail] = cost;
		this.tail++;
	}

	/**
	 * The wait until a request of cost {@code c} fits with {@code n} units in the log: room opens when the unit at
	 * 1-based position {@code n + c - limit} leaves the window, at its score + W.
	 */
	private long wait(long n, long c, long limit, long window, long at) {
		if (n + c <= limit) {
			return 0;
		}
		long position = n + c - limit;
		long seen = 0;
		for (int i = this.head; i < this.tail; i++) {
			seen += this.units[i];
			if (seen >= position) {
				return this.scores[i] + window - at;
			}
		}
		throw new IllegalStateException("sliding log holds " + seen + " units, fewer than position " + position);
	}

	private long reset(long n, long limit, long window, long at) {
		if (n == 0) {
			return 0;
		}
		return wait(n, limit, limit, window, at);
	}

	private long more(long n, long limit, long window, long at) {
		return moreAfter(limit - n, limit, (c) -> wait(n, c, limit, window, at));
	}

	/** The runs as {@code score x units}, oldest first. */
	@Override
	public String toString() {
		StringBuilder text = new StringBuilder("sl[");
		for (int i = this.head; i < this.tail; i++) {
			text.append((i > this.head) ? ", " : "").append(this.scores[i]).append('x').append(this.units[i]);
		}
		return text.append("; deadline=").append(this.deadline).append(']').toString();
	}

}
