package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.limits.ConfiguredLimit;

/**
 * What a call holds until it ends: the units its reserved limits took at admission, per client key, in Redis or
 * (while Redis failed) in this instance's memory, to be settled when the outcome is known
 * ({@link OutcomeCharger#settle}) or given back when the request does not go ahead ({@link OutcomeCharger#release});
 * and the leases its concurrency limits took, given back when the call ends, whatever its outcome
 * ({@link RateLimitEnforcer#release}). Limits that failed open hold nothing. Filled by the enforcer's decisions;
 * thread-safe. One per call: made by whoever sees the call end (the filters for a request, the advisor for a method
 * call), which then gives it back. What its attempts noted for the waits between them is in its {@link WaitNotes}.
 */
public final class Reservation {

	/**
	 * The units one client key's limits took.
	 * @param decision the admitting decision, whose limits carry the time they were decided at
	 * @param local whether this instance's memory took them (fail-local), rather than Redis
	 */
	record Held(String clientKey, List<ConfiguredLimit> limits, RateLimitDecision decision, boolean local) {
	}

	/**
	 * The leases one client key's concurrency limits took, or may have taken: an acquire that failed or timed out on
	 * this side may still have run in Redis, so its lease is given back all the same.
	 * @param leases the concurrency limits' requests, each with the call's lease id
	 * @param local whether this instance's memory holds them (fail-local), rather than Redis
	 */
	record Lease(String clientKey, List<LimitRequest> leases, boolean local) {
	}

	private final List<Held> held = new CopyOnWriteArrayList<>();

	private final WaitNotes waits = new WaitNotes();

	private final List<Lease> leases = new CopyOnWriteArrayList<>();

	void hold(String clientKey, List<ConfiguredLimit> limits, RateLimitDecision decision, boolean local) {
		if (decision.allowed()) {
			this.held.add(new Held(clientKey, limits, decision, local));
		}
	}

	/** What the call's attempts noted for its waits. */
	WaitNotes waits() {
		return this.waits;
	}

	void holdLease(Lease lease) {
		this.leases.add(lease);
	}

	List<Held> held() {
		return this.held;
	}

	/** Forgets what is held, once settled or released; the leases stay until {@link #takeLeases()}. */
	void clear() {
		this.held.clear();
	}

	/** Whether the call holds a lease, to be given back when it ends. */
	public boolean holdsLeases() {
		return !this.leases.isEmpty();
	}

	/** The leases held, forgotten here: each is given back once. */
	List<Lease> takeLeases() {
		List<Lease> taken = new ArrayList<>();
		for (Lease lease : this.leases) {
			if (this.leases.remove(lease)) {
				taken.add(lease);
			}
		}
		return taken;
	}

	/**
	 * Removes {@code leases} from those held, to be given back by whoever took them.
	 * @return those that were still held: a lease that the call's end took meanwhile is given back there, once
	 */
	List<Lease> forget(List<Lease> leases) {
		List<Lease> forgotten = new ArrayList<>();
		for (Lease lease : leases) {
			if (this.leases.remove(lease)) {
				forgotten.add(lease);
			}
		}
		return forgotten;
	}

}
