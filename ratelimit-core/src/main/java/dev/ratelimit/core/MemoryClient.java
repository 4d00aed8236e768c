package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The states of one client in {@link InMemoryRateLimiter}, one per limit identity (name, algorithm, window, as in
 * the Redis key), and their decisions, all or nothing as one script call, with the usage of the limits that record it
 * ({@link MemoryUsage}, the store's). Not thread-safe: guarded by its own monitor, which {@link MemoryStore} holds
 * around every call.
 */
final class MemoryClient {

	final String id;

	/** Limit identities and their states, in parallel. */
	private final List<LimitDefinition> identities = new ArrayList<>(2);

	private final List<MemoryState> states = new ArrayList<>(2);

	/** When every state here has expired on the store's clock; none can expire while it is first decided. */
	long deadline = Long.MAX_VALUE;

	/** Whether the sweep removed this client from the store: a decision must find or add another. */
	boolean removed;

	MemoryClient(String id) {
		this.id = id;
	}

	@Nullable MemoryState find(LimitDefinition limit) {
		for (int i = 0; i < this.identities.size(); i++) {
			LimitDefinition identity = this.identities.get(i);
			if (identity.sharesState(limit)) {
				return this.states.get(i);
			}
		}
		return null;
	}

	/**
	 * rate_limit.lua: every limit decides, and only if every enforced limit allows does every admitting limit write
	 * the request, and its usage (usage.lua); with {@code commit} false, peek.lua: nothing is written.
	 * @param now the request's time in ms
	 * @param clockNow the store's clock in ms, from which relative TTLs count
	 */
	RateLimitDecision decide(long now, long clockNow, List<LimitRequest> limits, boolean commit, MemoryUsage usage) {
		int size = limits.size();
		MemoryState[] used = new MemoryState[size];
		boolean[] listed = new boolean[size];
		long[] times = new long[size];
		MemoryState.Verdict[] verdicts = new MemoryState.Verdict[size];
		boolean allAllowed = true;
		for (int i = 0; i < size; i++) {
			LimitRequest limit = limits.get(i);
			MemoryState state = find(limit.definition());
			if (state != null && state.expired(clockNow)) {
				// the Redis key would be gone: the request finds no state
				remove(state);
				state = null;
			}
			listed[i] = state != null;
			used[i] = (state != null) ? state : MemoryState.create(limit.definition().algorithm());
			times[i] = used[i].decisionTime(now, limit.definition());
			verdicts[i] = used[i].decide(now, clockNow, limit);
			if (!limit.shadow()) {
				allAllowed &= verdicts[i].allowed;
			}
		}
		List<LimitDecision> decisions = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			if (commit && allAllowed && verdicts[i].allowed) {
				verdicts[i].commit();
				LimitRequest limit = limits.get(i);
				usage.record(limit.definition(), this.id, limit.cost(), 0, now, clockNow);
			}
			if (used[i].stored && !listed[i]) {
				this.identities.add(limits.get(i).definition());
				this.states.add(used[i]);
			}
			else if (!used[i].stored && listed[i]) {
				// deciding emptied it (a sliding log trimmed to nothing), as the script's ZREMRANGEBYSCORE
				// deletes its key
				remove(used[i]);
			}
			decisions.add(verdicts[i].toDecision(limits.get(i)).at(times[i]));
		}
		updateDeadline(clockNow);
		return new RateLimitDecision(decisions);
	}

	/**
	 * settle.lua: each limit's settlement, never denied.
	 * @param now the settlement's time in ms
	 * @param clockNow the store's clock in ms, from which relative TTLs count
	 */
	RateLimitDecision settle(long now, long clockNow, List<Settlement> settlements, MemoryLeaseReleases releases,
			MemoryUsage usage) {
		List<LimitDecision> decisions = new ArrayList<>(settlements.size());
		for (Settlement settlement : settlements) {
			LimitDefinition limit = settlement.reservation().definition();
			MemoryState state = find(limit);
			if (state != null && state.expired(clockNow)) {
				remove(state);
				state = null;
			}
			MemoryState used = (state != null) ? state : MemoryState.create(limit.algorithm());
			long at = used.decisionTime(now, limit);
			LimitDecision.Allowance after = (used instanceof MemoryConcurrency leases)
					? leases.release(now, settlement.reservation(), settlement.delta(),
							() -> releases.announce(this.id, limit))
					: used.settle(now, clockNow, limit, settlement.delta(), settlement.reservedAtMs());
			usage.record(limit, this.id, settlement.delta(), settlement.reservedAtMs(), now, clockNow);
			if (used.stored && state == null) {
				this.identities.add(limit);
				this.states.add(used);
			}
			else if (!used.stored && state != null) {
				remove(used);
			}
			decisions.add(LimitDecision.allowed(settlement.reservation(), after).at(at));
		}
		updateDeadline(clockNow);
		return new RateLimitDecision(decisions);
	}

	/** reset.lua: deletes the states of {@code limits} that have not expired on the clock; returns how many. */
	int reset(List<LimitDefinition> limits, long clockNow) {
		int deleted = 0;
		for (LimitDefinition limit : limits) {
			MemoryState state = find(limit);
			if (state != null) {
				// one that expired on the clock is gone in Redis too: DEL would not count it
				deleted += (state.deadline >= clockNow) ? 1 : 0;
				remove(state);
			}
		}
		updateDeadline(clockNow);
		return deleted;
	}

	/** Deletes every state of the client, marking it removed; returns how many had not expired on the clock. */
	int resetAll(long clockNow) {
		int deleted = 0;
		for (MemoryState state : this.states) {
			deleted += (state.stored && state.deadline >= clockNow) ? 1 : 0;
		}
		this.identities.clear();
		this.states.clear();
		this.removed = true;
		return deleted;
	}

	private void remove(MemoryState state) {
		int index = this.states.indexOf(state);
		this.identities.remove(index);
		this.states.remove(index);
	}

	/** Drops states expired on the clock, and notes when the last of the others expires. */
	private void updateDeadline(long clockNow) {
		long latest = Long.MIN_VALUE;
		for (int i = this.states.size() - 1; i >= 0; i--) {
			long stateDeadline = this.states.get(i).deadline;
			if (stateDeadline < clockNow) {
				this.identities.remove(i);
				this.states.remove(i);
			}
			else {
				latest = Math.max(latest, stateDeadline);
			}
		}
		this.deadline = latest;
	}

}
