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
		long at = now;
		if (this.tail > this.head && this.scores[this.tail - 1] > at) {
			at = this.scores[this.tail - 1];
		}
		// ZREMRANGEBYSCORE -inf (at - W): dropping entries that no longer count is no consumption
		while (this.tail > this.head && this.scores[this.head] <= at - window) {
			this.total -= this.units[this.head];
			this.head++;
		}
		if (this.head == this.tail) {
			// a sorted set trimmed to nothing is deleted by Redis, key and TTL: no state until the next admission
			this.stored = false;
			this.head = 0;
			this.tail = 0;
		}
		long time = at;
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
