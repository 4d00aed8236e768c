package dev.ratelimit.core;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * concurrency.lua in memory: the leases held, by id, with the time each expires at. A limit has few leases (its
 * {@code limit}), so the earliest and latest expiries are found by a scan, as cheap here as the script's two
 * {@code ZRANGE}s there.
 */
final class MemoryConcurrency extends MemoryState {

	private final Map<String, Long> expiries = new HashMap<>();

	@Override
	Verdict decide(long now, long clockNow, LimitRequest request) {
		long limit = request.definition().limit();
		long window = request.definition().windowMs();
		sweep(now);
		long count = this.expiries.size();
		String lease = request.lease();
		boolean mine = lease != null && this.expiries.containsKey(lease);
		if (!mine && count >= limit) {
			return Verdict.denied(limit - count, earliest() - now, reset(now), more(now));
		}
		return Verdict.allowed(limit - count, reset(now), more(now), (verdict) -> {
			// an admitted call has a lease: tryAcquire checked it
			this.expiries.put(requireLease(lease), now + window);
			expireAfter(latest() - now + TTL_MARGIN_MS, clockNow);
			verdict.after(limit - this.expiries.size(), reset(now), more(now));
		});
	}

	private static String requireLease(@Nullable String lease) {
		if (lease == null) {
			throw new IllegalStateException("a concurrency limit is decided with a lease");
		}
		return lease;
	}

	/** The request's own time: leases are swept at it (concurrency.lua). */
	@Override
	long decisionTime(long now, LimitDefinition limit) {
		return now;
	}

	/** Never called: {@link #release} gives a lease back (a settlement of a concurrency limit needs its lease id). */
	@Override
	LimitDecision.Allowance settle(long now, long clockNow, LimitDefinition limit, long delta, long reservedAt) {
		throw new UnsupportedOperationException("a concurrency limit is settled by release");
	}

	/**
	 * concurrency.lua's settle: a negative {@code delta} gives {@code lease} back (ZREM), and {@code announce} runs
	 * when the limit was full (PUBLISH); the TTL is kept.
	 */
	LimitDecision.Allowance release(long now, LimitRequest reservation, long delta, Runnable announce) {
		if (delta < 0 && reservation.lease() != null) {
			sweep(now);
			boolean full = this.expiries.size() >= reservation.definition().limit();
			if (this.expiries.remove(reservation.lease()) != null && full) {
				announce.run();
			}
		}
		sweep(now);
		return allowance(reservation.definition().limit() - this.expiries.size(), reset(now), more(now));
	}

	/** leases.lua: the leases live at {@code now}, soonest expiry first; nothing is removed. */
	List<HeldLease> leases(long now) {
		return this.expiries.entrySet()
			.stream()
			.filter((lease) -> lease.getValue() > now)
			.sorted(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
			.map((lease) -> new HeldLease(lease.getKey(), lease.getValue() - now))
			.toList();
	}

	/** ZREMRANGEBYSCORE -inf now; an emptied set is deleted by Redis, key and TTL. */
	private void sweep(long now) {
		Iterator<Long> it = this.expiries.values().iterator();
		while (it.hasNext()) {
			if (it.next() <= now) {
				it.remove();
			}
		}
		if (this.expiries.isEmpty()) {
			this.stored = false;
		}
	}

	private long earliest() {
		return this.expiries.values().stream().mapToLong(Long::longValue).min().orElse(0);
	}

	private long latest() {
		return this.expiries.values().stream().mapToLong(Long::longValue).max().orElse(0);
	}

	private long reset(long now) {
		return this.expiries.isEmpty() ? 0 : latest() - now;
	}

	private long more(long now) {
		return this.expiries.isEmpty() ? 0 : earliest() - now;
	}

	@Override
	public String toString() {
		return "cc" + this.expiries + "; deadline=" + this.deadline + ']';
	}

}
