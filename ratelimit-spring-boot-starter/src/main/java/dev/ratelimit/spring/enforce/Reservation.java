package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.jspecify.annotations.Nullable;

/**
 * What a call holds until it ends: the units its reserved limits took at admission, per client key, in Redis or
 * (while Redis failed) in this instance's memory, to be settled when the outcome is known
 * ({@link OutcomeCharger#settle}) or given back when the request does not go ahead ({@link OutcomeCharger#release});
 * and the leases its concurrency limits took, given back when the call ends, whatever its outcome
 * ({@link RateLimitEnforcer#release}). Limits that failed open hold nothing. Filled by the enforcer's decisions;
 * thread-safe. One per call: made by whoever sees the call end (the filters for a request, the advisor for a method
 * call), which then gives it back.
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

	/**
	 * The concurrency limits of one client key that denied an attempt when nothing else did: a release of one of
	 * their leases may admit the next ({@link LeaseWaits}).
	 * @param retryAfterMs the latest of their earliest lease expiries, as the limiter reported them (ms)
	 */
	record LeaseDenial(String clientKey, List<LimitDefinition> limits, long retryAfterMs) {
	}

	/**
	 * The concurrency limits of one client key that admitted an attempt with room left beside its lease: a caller
	 * waiting for one of them may have it ({@link LeaseWaits}).
	 */
	record LeaseRoom(String clientKey, List<LimitDefinition> limits) {
	}

	private final List<Held> held = new CopyOnWriteArrayList<>();

	private volatile @Nullable LeaseDenial leaseDenial;

	private volatile @Nullable LeaseRoom leaseRoom;

	private final List<Lease> leases = new CopyOnWriteArrayList<>();

	void hold(String clientKey, List<ConfiguredLimit> limits, RateLimitDecision decision, boolean local) {
		if (decision.allowed()) {
			this.held.add(new Held(clientKey, limits, decision, local));
		}
	}

	/** An attempt denied at {@code clientKey}: what it may wait for, when only concurrency limits denied it. */
	void denied(String clientKey, RateLimitDecision decision) {
		List<LimitDefinition> waitedFor = new ArrayList<>(1);
		long retryAfterMs = 0;
		for (LimitDecision limit : decision.decisions()) {
			if (limit.allowed() || limit.request().shadow()) {
				continue;
			}
			if (limit.request().definition().algorithm().rate()) {
				this.leaseDenial = null;
				return;
			}
			waitedFor.add(limit.request().definition());
			retryAfterMs = Math.max(retryAfterMs, limit.retryAfterMs().orElse(0));
		}
		this.leaseDenial = waitedFor.isEmpty() ? null : new LeaseDenial(clientKey, waitedFor, retryAfterMs);
	}

	/** An attempt admitted at {@code clientKey}: the concurrency limits it took a lease of that have room left. */
	void admitted(String clientKey, RateLimitDecision decision) {
		List<LimitDefinition> roomy = new ArrayList<>(1);
		for (LimitDecision limit : decision.decisions()) {
			if (limit.allowed() && limit.request().lease() != null && limit.remaining() > 0) {
				roomy.add(limit.request().definition());
			}
		}
		if (!roomy.isEmpty()) {
			this.leaseRoom = new LeaseRoom(clientKey, roomy);
		}
	}

	/** The room the last admitted attempt left, forgotten here; {@code null} when it left none. */
	@Nullable LeaseRoom takeLeaseRoom() {
		LeaseRoom room = this.leaseRoom;
		this.leaseRoom = null;
		return room;
	}

	/** What the last denied attempt may wait for, forgotten here; {@code null} unless only leases denied it. */
	@Nullable LeaseDenial takeLeaseDenial() {
		LeaseDenial denial = this.leaseDenial;
		this.leaseDenial = null;
		return denial;
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

	/** Removes {@code leases} from those held (given back by whoever took them). */
	void forget(List<Lease> leases) {
		this.leases.removeAll(leases);
	}

}
