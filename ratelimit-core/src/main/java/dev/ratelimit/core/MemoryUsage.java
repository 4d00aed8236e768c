package dev.ratelimit.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * Usage in memory ({@link InMemoryRateLimiter}): usage.lua and usage_page.lua on one set per limit name and period,
 * written from the monitors of different clients at once, so without a lock of its own: a client's units in an
 * {@link AtomicLong}, the cap kept exact by counting the clients as they are added. Each set expires on the store's
 * clock as its Redis key would ({@code docs/ALGORITHMS.md}, "Usage").
 */
final class MemoryUsage {

	/** The sets by {@link RedisKeys#usageKey}'s name for one set: the limit and the period's bounds. */
	private final Map<String, Period> periods = new ConcurrentHashMap<>();

	/** usage.lua's {@code record_usage}: units added at {@code now}, or taken back in {@code reservedAt}'s period. */
	void record(LimitDefinition limit, String clientId, long units, long reservedAt, long now, long clockNow) {
		UsageRecording usage = limit.usage();
		if (usage == null || units == 0) {
			return;
		}
		long[] b = usage.period().usageBounds(now);
		if (units > 0) {
			int p = (now < b[1]) ? 0 : (now < b[2]) ? 1 : 2;
			Period period = this.periods.compute(name(limit, b[p], b[p + 1]),
					(name, stored) -> (stored == null || stored.expired(clockNow)) ? new Period() : stored);
			if (period.add(clientId, units, usage.maxClients())) {
				// a new client sets the TTL, as usage.lua's PEXPIRE
				period.deadline = clockNow + Math.max(b[p + 2] - now, 0) + MemoryState.TTL_MARGIN_MS;
				sweep(clockNow);
			}
		}
		else if (reservedAt >= b[0] && reservedAt < b[3]) {
			int p = (reservedAt < b[1]) ? 0 : (reservedAt < b[2]) ? 1 : 2;
			Period period = find(name(limit, b[p], b[p + 1]), clockNow);
			if (period != null) {
				period.refund(clientId, -units);
			}
		}
	}

	/** usage_page.lua on the period that holds {@code now}, or the one before it. */
	Usage read(LimitDefinition limit, Usage.Period which, int page, int size, long now, long clockNow) {
		UsageRecording usage = limit.usage();
		if (usage == null) {
			throw Requests.noUsage(limit);
		}
		long[] b = usage.period().usageBounds(now);
		int p = (which == Usage.Period.CURRENT) ? 1 : 0;
		Period period = find(name(limit, b[p], b[p + 1]), clockNow);
		List<ClientUsage> entries = new ArrayList<>();
		long clients = 0;
		long overflow = 0;
		if (period != null) {
			period.units.forEach((id, units) -> entries.add(new ClientUsage(id, units.get())));
			clients = entries.size();
			overflow = period.overflow.get();
		}
		entries.sort(RedisUsage.LARGEST_FIRST);
		int from = (int) Math.min((long) page * size, entries.size());
		return new Usage(limit.name(), Instant.ofEpochMilli(b[p]), Instant.ofEpochMilli(b[p + 1]), clients, overflow,
				page, size, entries.subList(from, Math.min(from + size, entries.size())));
	}

	private @Nullable Period find(String name, long clockNow) {
		Period period = this.periods.get(name);
		return (period != null && !period.expired(clockNow)) ? period : null;
	}

	/** Drops the expired sets: a few per limit at most, and only when a set gains a client. */
	private void sweep(long clockNow) {
		this.periods.values().removeIf((period) -> period.expired(clockNow));
	}

	private static String name(LimitDefinition limit, long start, long end) {
		return limit.name() + ":" + start + "-" + end;
	}

	/** When the set of {@code limit}'s usage in {@code [start, end)} expires on the store's clock; for tests. */
	@Nullable Long deadline(LimitDefinition limit, long start, long end) {
		Period period = this.periods.get(name(limit, start, end));
		return (period != null) ? period.deadline : null;
	}

	/** One limit's usage in one period. */
	private static final class Period {

		final Map<String, AtomicLong> units = new ConcurrentHashMap<>();

		/** The clients in {@link #units}, counted as they are added so that the cap is exact. */
		final AtomicInteger clients = new AtomicInteger();

		final AtomicLong overflow = new AtomicLong();

		/** When the set expires on the store's clock; set when a client is added. */
		volatile long deadline = Long.MAX_VALUE;

		boolean expired(long clockNow) {
			return clockNow > this.deadline;
		}

		/**
		 * Adds the client's units, to the overflow at the cap; whether the client held none before (absent, or at 0
		 * after a refund), when usage.lua's ZINCRBY returns the units added and the script sets the TTL.
		 */
		boolean add(String clientId, long units, int cap) {
			AtomicLong client = this.units.get(clientId);
			if (client == null) {
				client = this.units.computeIfAbsent(clientId,
						(id) -> (this.clients.incrementAndGet() <= cap) ? new AtomicLong() : uncounted());
				if (client == null) {
					this.overflow.addAndGet(units);
					return true;
				}
			}
			return client.getAndAdd(units) == 0;
		}

		/** Undoes the count of a client left out at the cap. */
		private @Nullable AtomicLong uncounted() {
			this.clients.decrementAndGet();
			return null;
		}

		/** Takes back up to {@code units} of the client's, or of the overflow for a client not recorded. */
		void refund(String clientId, long units) {
			AtomicLong client = this.units.get(clientId);
			AtomicLong from = (client != null) ? client : this.overflow;
			from.getAndUpdate((held) -> held - Math.min(units, held));
		}

	}

}
