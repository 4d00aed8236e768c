package dev.ratelimit.spring.enforce;

import java.util.List;
import java.util.concurrent.Executor;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * One request's decisions, one client key after the other.
 * @param deadline the request's deadline ({@link System#nanoTime()})
 * @param applied the decisions whose fields the response carries, so far
 * @param continuation runs what follows Redis' answer
 * @param reservation where what the call holds until it ends is kept: the leases it takes, and with
 * {@code reserveUnits} the units its limits take, to be settled after the call
 * @param lease the lease id of the request's concurrency limits, or {@code null} when it has none
 * @param leases the leases this sequence took (or may have), given back when a later key does not admit
 * @param parent the observation the decisions' observations go under, or {@code null}
 */
record DecisionSequence(LimitedRequest request, long deadline, List<LimitDecision> applied, Executor continuation,
		Reservation reservation, boolean reserveUnits, @Nullable String lease, List<Reservation.Lease> leases,
		@Nullable Observation parent) {

	/** A local decision (fail-local), held when the sequence reserves; its leases always, renewed. */
	void holdLocal(String clientKey, List<ConfiguredLimit> limits, @Nullable RateLimitDecision local,
			LeaseCalls leases) {
		if (local == null) {
			return;
		}
		if (this.reserveUnits) {
			this.reservation.hold(clientKey, limits, local, true);
		}
		holdLease(Leases.taken(clientKey, local, true), leases);
	}

	/**
	 * Keeps a lease of this request, in the call's reservation until the call ends.
	 * @param renewals where a lease the call holds is renewed while it runs; {@code null} for one it may hold
	 * (an acquire not answered), which is only given back
	 */
	void holdLease(Reservation.@Nullable Lease lease, @Nullable LeaseCalls renewals) {
		if (lease == null) {
			return;
		}
		synchronized (this.leases) {
			this.leases.add(lease);
		}
		this.reservation.holdLease(lease);
		if (renewals != null) {
			renewals.renewing(lease);
		}
	}

	/** The request does not go ahead, or its caller went away: the leases it took are given back now. */
	void giveBack(LeaseCalls leases) {
		List<Reservation.Lease> taken;
		synchronized (this.leases) {
			taken = List.copyOf(this.leases);
			this.leases.clear();
		}
		this.reservation.forget(taken).forEach(leases::release);
	}

}
