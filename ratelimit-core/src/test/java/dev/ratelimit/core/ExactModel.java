package dev.ratelimit.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongPredicate;

/**
 * An exact, in-memory model of the four algorithms of {@code docs/ALGORITHMS.md}, written from the spec alone
 * (independently of the Lua scripts) so that a differential test can compare the two.
 *
 * <p>
 * All arithmetic is on {@code long} integers: the sliding window counter's estimate is kept scaled by {@code W},
 * the token bucket's tokens are kept scaled by {@code W} (a refill of {@code L} scaled units per ms).
 *
 * <p>
 * {@code retryAfterMs} and {@code resetAfterMs} are defined by search, not by formula: the smallest wait {@code d}
 * after which, with no other traffic, the same request would be admitted (respectively the limiter would admit
 * its full allowance of cost-1 requests). With no traffic, admission and allowance only ever improve as time
 * passes, so an exponential-then-binary search finds that smallest {@code d}. As a self-check, for small windows
 * the result is verified by a linear scan over every millisecond, and it is compared with the spec's closed
 * formulas where the spec gives one (fixed window, sliding log, token bucket). An inconsistency inside the model
 * throws {@link IllegalStateException}.
 *
 * <p>
 * Time going backwards (rule 7): stored state never moves back, and a request earlier than the stored time is
 * decided at the stored time, with every wait measured from there. The sliding log and the token bucket take
 * {@code max(now, newest stored time)}; the two windowed counters take the start of the stored window for a request
 * whose window is older (their stored time: the state keeps the window, not the instant). Everything below is
 * computed at that time ({@link Limiter#decisionTime}).
 *
 * <p>
 * Several limits on one request are all or nothing: each limit reports its own verdict; only if all allow does
 * every limit consume. A limit that allowed a request denied by another limit consumed nothing, and its
 * {@code remaining} and {@code resetAfterMs} describe that unchanged state.
 */
final class ExactModel {

	/**
	 * The decision of one limit: the five fields that the Redis limiter reports, and {@code atMs}, the time it was
	 * taken at (the request's time, or the stored time when the request is earlier), from which its waits count.
	 */
	record Decision(boolean allowed, long remaining, OptionalLong retryAfterMs, long resetAfterMs, long moreAfterMs,
			long atMs) {
	}

	/** Windows up to this size get a linear-scan cross-check of every search. */
	private static final long LINEAR_CHECK_MAX_WINDOW = 64;

	private final Map<String, Limiter> limiters = new HashMap<>();

	/** Decides one request against one limit at {@code nowMs}. */
	Decision decide(String clientId, LimitRequest limit, long nowMs) {
		return decide(clientId, List.of(limit), nowMs).get(0);
	}

	/** Decides one request against several limits at {@code nowMs}, all or nothing. */
	List<Decision> decide(String clientId, List<LimitRequest> requests, long nowMs) {
		List<LimitDefinition> limits = requests.stream().map(LimitRequest::definition).toList();
		List<Limiter> models = new ArrayList<>(limits.size());
		for (LimitDefinition limit : limits) {
			Limiter model = this.limiters.computeIfAbsent(key(clientId, limit), (k) -> create(limit));
			model.checkShape(limit);
			models.add(model);
		}
		boolean[] verdicts = new boolean[limits.size()];
		long[] times = new long[limits.size()];
		boolean all = true;
		for (int i = 0; i < limits.size(); i++) {
			Limiter model = models.get(i);
			model.observe(nowMs);
			// each limit is decided at its stored time, which a commit keeps: the fields after it count from there too
			times[i] = model.decisionTime(nowMs);
			verdicts[i] = model.admits(times[i], requests.get(i).cost());
			all &= verdicts[i];
		}
		if (all) {
			for (int i = 0; i < limits.size(); i++) {
				models.get(i).commit(times[i], requests.get(i).cost());
			}
		}
		List<Decision> decisions = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			Limiter model = models.get(i);
			long cost = requests.get(i).cost();
			long at = times[i];
			OptionalLong retry;
			if (verdicts[i]) {
				retry = OptionalLong.of(0);
			}
			else if (cost > model.bound()) {
				retry = OptionalLong.empty();
			}
			else {
				retry = OptionalLong.of(model.retryAfter(at, cost));
			}
			decisions.add(new Decision(verdicts[i], Math.max(0, model.allowance(at)), retry, model.resetAfter(at),
					model.moreAfter(at), at));
		}
		return decisions;
	}

	/**
	 * Settles a reservation of one limit at {@code nowMs}, as docs/ALGORITHMS.md ("Settling a reservation") says:
	 * {@code actualCost - reserved cost} charged (into debt if need be) or given back of the units reserved at
	 * {@code reservedAtMs}. Never denied.
	 */
	Decision settle(String clientId, LimitRequest reservation, long reservedAtMs, long actualCost, long nowMs) {
		LimitDefinition limit = reservation.definition();
		Limiter model = this.limiters.computeIfAbsent(key(clientId, limit), (k) -> create(limit));
		model.checkShape(limit);
		model.observe(nowMs);
		long at = model.decisionTime(nowMs);
		model.settle(at, actualCost - reservation.cost(), reservedAtMs);
		return new Decision(true, Math.max(0, model.allowance(at)), OptionalLong.of(0), model.resetAfter(at),
				model.moreAfter(at), at);
	}

	/** The spec's cap on a state's units after a settled charge: {@code (n + 1) × W} below 2^52. */
	static long maxUnits(long window) {
		return (1L << 52) / window - 1;
	}

	/**
	 * Drops the state of one limit of one client, as when its Redis key has expired. Once the limiter is back to
	 * full allowance this changes no decision at a time at or after the latest one seen; it only matters for a
	 * request that goes back in time, which then finds no stored time to be held to.
	 */
	void forget(String clientId, LimitDefinition limit) {
		this.limiters.remove(key(clientId, limit));
	}

	/** The model's state of one limit of one client, for failure messages. */
	String describe(String clientId, LimitDefinition limit) {
		Limiter model = this.limiters.get(key(clientId, limit));
		return (model != null) ? model.toString() : "(no state)";
	}

	private static String key(String clientId, LimitDefinition limit) {
		return clientId + "\u0000" + limit.name() + "\u0000" + limit.algorithm() + "\u0000" + limit.windowMs();
	}

	private static Limiter create(LimitDefinition limit) {
		return switch (limit.algorithm()) {
			case FIXED_WINDOW -> new FixedWindow(limit.limit(), limit.windowMs());
			case SLIDING_LOG -> new SlidingLog(limit.limit(), limit.windowMs());
			case SLIDING_WINDOW_COUNTER -> new SlidingWindowCounter(limit.limit(), limit.windowMs());
			case TOKEN_BUCKET -> new TokenBucket(limit.limit(), limit.windowMs(), limit.capacity());
			case CONCURRENCY -> throw new IllegalArgumentException("the exact model is of the rate limits; concurrency has ConcurrencyLimitContract");
		};
	}

	/**
	 * The smallest {@code d >= from} with {@code test(d)}, for a predicate that is monotone (false, then true
	 * forever).
	 */
	static long smallest(long from, LongPredicate test) {
		if (test.test(from)) {
			return from;
		}
		long bad = from;
		long step = 1;
		long good;
		while (true) {
			long candidate = from + step;
			if (test.test(candidate)) {
				good = candidate;
				break;
			}
			bad = candidate;
			if (step > (1L << 50)) {
				throw new IllegalStateException("no admitting time found within 2^50 ms");
			}
			step *= 2;
		}
		while (good - bad > 1) {
			long mid = bad + (good - bad) / 2;
			if (test.test(mid)) {
				good = mid;
			}
			else {
				bad = mid;
			}
		}
		return good;
	}

	/** One limit of one client. */
	abstract static class Limiter {

		final long limit;

		final long window;

		Limiter(long limit, long window) {
			this.limit = limit;
			this.window = window;
		}

		/** The largest cost that can ever be admitted, and the full allowance. */
		long bound() {
			return this.limit;
		}

		void checkShape(LimitDefinition definition) {
			if (definition.limit() != this.limit || definition.windowMs() != this.window
					|| definition.capacity() != bound() && definition.algorithm() == Algorithm.TOKEN_BUCKET) {
				throw new IllegalArgumentException("the model keeps one shape per key: " + definition);
			}
		}

		/** Persistent bookkeeping done before deciding at {@code now} (for the log: dropping old entries). */
		void observe(long now) {
		}

		/**
		 * The time a request at {@code now} is decided at: {@code now}, or the stored time when {@code now} is
		 * earlier (rule 7). No wait is ever counted from a time earlier than this.
		 */
		abstract long decisionTime(long now);

		/** Whether a request of {@code cost} at {@code t} would be admitted; pure. */
		abstract boolean admits(long t, long cost);

		/** Admits a request of {@code cost} at {@code t}; only called when {@link #admits} holds. */
		abstract void commit(long t, long cost);

		/**
		 * Settles at {@code t} (a decision time): charges {@code delta > 0} even beyond the limit, or gives back
		 * {@code -delta} of the units reserved at {@code reservedAt} while they still count.
		 */
		abstract void settle(long t, long delta, long reservedAt);

		/** How many cost-1 requests would be admitted one after another at {@code t}; pure. */
		abstract long allowance(long t);

		/** Closed formula from the spec for the retry wait, or -2 where the spec gives none. */
		long formulaRetryAfter(long now, long cost) {
			return -2;
		}

		/** Closed formula for the reset wait, or -2 where none is given. */
		long formulaResetAfter(long now) {
			return -2;
		}

		final long retryAfter(long now, long cost) {
			LongPredicate admittedAfter = (d) -> admits(Math.addExact(now, d), cost);
			long searched = smallest(1, admittedAfter);
			if (this.window <= LINEAR_CHECK_MAX_WINDOW) {
				long linear = 1;
				while (!admittedAfter.test(linear)) {
					linear++;
				}
				check(linear == searched, "retry search " + searched + " vs linear scan " + linear, now, cost);
			}
			check(admittedAfter.test(searched) && !admittedAfter.test(searched - 1),
					"retry " + searched + " not tight", now, cost);
			long formula = formulaRetryAfter(now, cost);
			check(formula == -2 || formula == searched, "retry search " + searched + " vs spec formula " + formula,
					now, cost);
			return searched;
		}

		/** The wait until the allowance grows by at least one unit; 0 when it is full. */
		final long moreAfter(long now) {
			// in debt the allowance reported is 0: it grows when one unit is admitted
			long current = Math.max(0, allowance(now));
			if (current >= bound()) {
				return 0;
			}
			return smallest(0, (d) -> allowance(Math.addExact(now, d)) > current);
		}

		final long resetAfter(long now) {
			LongPredicate fullAfter = (d) -> allowance(Math.addExact(now, d)) == bound();
			long searched = smallest(0, fullAfter);
			if (this.window <= LINEAR_CHECK_MAX_WINDOW) {
				long linear = 0;
				while (!fullAfter.test(linear)) {
					linear++;
				}
				check(linear == searched, "reset search " + searched + " vs linear scan " + linear, now, 0);
			}
			long formula = formulaResetAfter(now);
			check(formula == -2 || formula == searched, "reset search " + searched + " vs formula " + formula, now,
					0);
			return searched;
		}

		private void check(boolean ok, String what, long now, long cost) {
			if (!ok) {
				throw new IllegalStateException("model inconsistency in " + this + " at now=" + now + " cost=" + cost
						+ ": " + what);
			}
		}

	}

	/** Fixed window: one counter for window {@code floor(now / W)}. */
	static final class FixedWindow extends Limiter {

		private boolean present;

		private long storedWindow;

		private long count;

		FixedWindow(long limit, long window) {
			super(limit, window);
		}

		/** The window a request at {@code t} counts in: never older than the stored one. */
		private long windowOf(long t) {
			long index = Math.floorDiv(t, this.window);
			return this.present ? Math.max(index, this.storedWindow) : index;
		}

		private long countAt(long t) {
			return (this.present && windowOf(t) == this.storedWindow) ? this.count : 0;
		}

		@Override
		long decisionTime(long now) {
			// a request in an older window counts in the stored one, whose earliest instant is its start
			return (windowOf(now) > Math.floorDiv(now, this.window)) ? this.storedWindow * this.window : now;
		}

		@Override
		boolean admits(long t, long cost) {
			return cost <= this.limit && countAt(t) + cost <= this.limit;
		}

		@Override
		void commit(long t, long cost) {
			long index = windowOf(t);
			if (!this.present || index != this.storedWindow) {
				this.present = true;
				this.storedWindow = index;
				this.count = 0;
			}
			this.count += cost;
		}

		@Override
		void settle(long t, long delta, long reservedAt) {
			long index = windowOf(t);
			if (delta > 0) {
				if (!this.present || index != this.storedWindow) {
					this.present = true;
					this.storedWindow = index;
					this.count = 0;
				}
				this.count = Math.min(this.count + delta, maxUnits(this.window));
			}
			else if (delta < 0 && this.present && index == this.storedWindow
					&& Math.floorDiv(reservedAt, this.window) == index) {
				this.count = Math.max(0, this.count + delta);
			}
		}

		@Override
		long allowance(long t) {
			return this.limit - countAt(t);
		}

		@Override
		long formulaRetryAfter(long now, long cost) {
			// time to the start of the next window (of the window the request counts in)
			return (windowOf(now) + 1) * this.window - now;
		}

		@Override
		long formulaResetAfter(long now) {
			return (countAt(now) == 0) ? 0 : (windowOf(now) + 1) * this.window - now;
		}

		@Override
		public String toString() {
			return "FixedWindow[L=" + this.limit + ", W=" + this.window + ", window=" + this.storedWindow + ", count="
					+ this.count + "]";
		}

	}

	/** Sliding log: admitted units with their timestamps, in ascending order (entries merge equal timestamps). */
	static final class SlidingLog extends Limiter {

		/** {score, units}, ascending by score. */
		private final ArrayDeque<long[]> entries = new ArrayDeque<>();

		SlidingLog(long limit, long window) {
			super(limit, window);
		}

		private long effective(long t) {
			return this.entries.isEmpty() ? t : Math.max(t, this.entries.peekLast()[0]);
		}

		@Override
		long decisionTime(long now) {
			return effective(now);
		}

		private long countAt(long t) {
			long cutoff = effective(t) - this.window;
			long count = 0;
			for (long[] entry : this.entries) {
				if (entry[0] > cutoff) {
					count += entry[1];
				}
			}
			return count;
		}

		@Override
		void observe(long now) {
			long cutoff = effective(now) - this.window;
			while (!this.entries.isEmpty() && this.entries.peekFirst()[0] <= cutoff) {
				this.entries.pollFirst();
			}
		}

		@Override
		boolean admits(long t, long cost) {
			return cost <= this.limit && countAt(t) + cost <= this.limit;
		}

		@Override
		void commit(long t, long cost) {
			long at = effective(t);
			if (!this.entries.isEmpty() && this.entries.peekLast()[0] == at) {
				this.entries.peekLast()[1] += cost;
			}
			else {
				this.entries.addLast(new long[] { at, cost });
			}
		}

		@Override
		void settle(long t, long delta, long reservedAt) {
			if (delta > 0) {
				// every unit charged, as an admission would add it (the scripts add at most L: the same to a client)
				commit(t, delta);
				return;
			}
			if (delta < 0 && reservedAt > effective(t) - this.window) {
				for (Iterator<long[]> it = this.entries.iterator(); it.hasNext();) {
					long[] entry = it.next();
					if (entry[0] == reservedAt) {
						entry[1] -= Math.min(entry[1], -delta);
						if (entry[1] == 0) {
							it.remove();
						}
						return;
					}
				}
			}
		}

		@Override
		long allowance(long t) {
			return this.limit - countAt(t);
		}

		@Override
		long formulaRetryAfter(long now, long cost) {
			// the entry at position count + cost - L (1-based, ascending) among those in the window leaves at score + W
			long cutoff = effective(now) - this.window;
			long position = countAt(now) + cost - this.limit;
			long seen = 0;
			for (long[] entry : this.entries) {
				if (entry[0] > cutoff) {
					seen += entry[1];
					if (seen >= position) {
						return entry[0] + this.window - now;
					}
				}
			}
			throw new IllegalStateException("no entry at position " + position);
		}

		@Override
		long formulaResetAfter(long now) {
			return (countAt(now) == 0) ? 0 : this.entries.peekLast()[0] + this.window - now;
		}

		@Override
		public String toString() {
			StringBuilder text = new StringBuilder("SlidingLog[L=" + this.limit + ", W=" + this.window + ", entries=");
			Iterator<long[]> it = this.entries.iterator();
			while (it.hasNext()) {
				long[] entry = it.next();
				text.append(entry[0]).append('x').append(entry[1]).append(it.hasNext() ? "," : "");
			}
			return text.append(']').toString();
		}

	}

	/** Sliding window counter: current and previous fixed-window counters, the previous one weighted. */
	static final class SlidingWindowCounter extends Limiter {

		private boolean present;

		private long storedWindow;

		private long current;

		private long previous;

		SlidingWindowCounter(long limit, long window) {
			super(limit, window);
		}

		/** {window index, current count, previous count, position in window} as seen at {@code t}. */
		private long[] view(long t) {
			long index = Math.floorDiv(t, this.window);
			long position = Math.floorMod(t, this.window);
			if (!this.present) {
				return new long[] { index, 0, 0, position };
			}
			if (index < this.storedWindow) {
				// older window: counted in the stored window, no time elapsed since its start
				return new long[] { this.storedWindow, this.current, this.previous, 0 };
			}
			if (index == this.storedWindow) {
				return new long[] { index, this.current, this.previous, position };
			}
			if (index == this.storedWindow + 1) {
				return new long[] { index, 0, this.current, position };
			}
			return new long[] { index, 0, 0, position };
		}

		@Override
		long decisionTime(long now) {
			return (this.present && Math.floorDiv(now, this.window) < this.storedWindow)
					? this.storedWindow * this.window : now;
		}

		/** {@code floor(e)} with {@code e = prev * (1 - position / W) + count}, exactly. */
		private long floorEstimate(long[] view) {
			long scaled = Math.addExact(Math.multiplyExact(view[2], this.window - view[3]),
					Math.multiplyExact(view[1], this.window));
			return Math.floorDiv(scaled, this.window);
		}

		@Override
		boolean admits(long t, long cost) {
			return cost <= this.limit && floorEstimate(view(t)) + cost <= this.limit;
		}

		@Override
		void commit(long t, long cost) {
			long[] view = view(t);
			this.present = true;
			this.storedWindow = view[0];
			this.current = view[1] + cost;
			this.previous = view[2];
		}

		@Override
		void settle(long t, long delta, long reservedAt) {
			long[] view = view(t);
			long reserved = Math.floorDiv(reservedAt, this.window);
			long current = view[1];
			long previous = view[2];
			if (delta > 0) {
				current = Math.min(current + delta, maxUnits(this.window));
			}
			else if (delta < 0 && reserved == view[0]) {
				current = Math.max(0, current + delta);
			}
			else if (delta < 0 && reserved == view[0] - 1) {
				previous = Math.max(0, previous + delta);
			}
			if (current == view[1] && previous == view[2]) {
				// a settlement that changes nothing writes nothing
				return;
			}
			this.present = true;
			this.storedWindow = view[0];
			this.current = current;
			this.previous = previous;
		}

		@Override
		long allowance(long t) {
			return Math.max(0, this.limit - floorEstimate(view(t)));
		}

		@Override
		public String toString() {
			return "SlidingWindowCounter[L=" + this.limit + ", W=" + this.window + ", window=" + this.storedWindow
					+ ", current=" + this.current + ", previous=" + this.previous + "]";
		}

	}

	/** Token bucket with tokens scaled by {@code W}: refill of {@code L} scaled units per ms, exact. */
	static final class TokenBucket extends Limiter {

		private final long capacity;

		private boolean present;

		private long scaledTokens;

		private long timestamp;

		TokenBucket(long limit, long window, long capacity) {
			super(limit, window);
			this.capacity = capacity;
		}

		@Override
		long bound() {
			return this.capacity;
		}

		private long full() {
			return Math.multiplyExact(this.capacity, this.window);
		}

		/** Scaled tokens at {@code t}: {@code min(C*W, tokens + max(0, t - ts) * L)}. */
		private long scaledAt(long t) {
			if (!this.present) {
				return full();
			}
			long elapsed = Math.max(0, t - this.timestamp);
			long missing = full() - this.scaledTokens;
			if (elapsed >= (missing + this.limit - 1) / this.limit) {
				return full();
			}
			return this.scaledTokens + elapsed * this.limit;
		}

		@Override
		long decisionTime(long now) {
			return this.present ? Math.max(now, this.timestamp) : now;
		}

		@Override
		boolean admits(long t, long cost) {
			return cost <= this.capacity && scaledAt(t) >= Math.multiplyExact(cost, this.window);
		}

		@Override
		void commit(long t, long cost) {
			long scaled = scaledAt(t);
			this.timestamp = this.present ? Math.max(this.timestamp, t) : t;
			this.present = true;
			this.scaledTokens = scaled - cost * this.window;
		}

		@Override
		void settle(long t, long delta, long reservedAt) {
			long scaled = scaledAt(t);
			long left = Math.max(-maxUnits(this.window) * this.window, Math.min(full(), scaled - delta * this.window));
			if (left == scaled) {
				// a settlement that changes nothing writes nothing
				return;
			}
			this.timestamp = this.present ? Math.max(this.timestamp, t) : t;
			this.present = true;
			this.scaledTokens = left;
		}

		@Override
		long allowance(long t) {
			return Math.floorDiv(scaledAt(t), this.window);
		}

		@Override
		long formulaRetryAfter(long now, long cost) {
			// ceil((c - tokens) * W / L) = ceil((c * W - scaled) / L)
			long need = cost * this.window - scaledAt(now);
			return ceilDiv(need, this.limit);
		}

		@Override
		long formulaResetAfter(long now) {
			long missing = full() - scaledAt(now);
			return (missing == 0) ? 0 : ceilDiv(missing, this.limit);
		}

		private static long ceilDiv(long x, long y) {
			return -Math.floorDiv(-x, y);
		}

		@Override
		public String toString() {
			return "TokenBucket[L=" + this.limit + ", W=" + this.window + ", C=" + this.capacity + ", scaledTokens="
					+ (this.present ? this.scaledTokens + "/" + this.window : "full") + ", ts=" + this.timestamp + "]";
		}

	}

}
