package dev.ratelimit.spring.enforce;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.spring.observation.RateLimitOperation;
import io.micrometer.observation.Observation;

/**
 * The lease side of the calls to Redis: the leases of concurrency limits that running calls hold, renewed while they
 * run ({@link LeaseRenewals}) and given back when they end. Each is sent without waiting for it, bounded by a timeout
 * of its own ({@code ratelimit.redis.timeout}, not a request's deadline, which may have run out), timed, counted and
 * moving the fail-local breaker as every call of {@link RedisCaller}, and observed ({@code lease-renewal},
 * {@code lease-release}). Leases taken in this instance's memory (fail-local) are renewed and given back there.
 */
final class LeaseCalls {

	private final RedisCaller redis;

	private final RateLimiter limiter;

	private final long timeoutNanos;

	private final RateLimitEventRecorder events;

	private final LocalFallback fallback;

	private final DecisionObservations observations;

	private final LeaseRenewals renewals = new LeaseRenewals(this::renew, this::giveBack);

	/**
	 * @param redis the calls' deadlines, timing and breaker
	 * @param timeoutNanos {@code ratelimit.redis.timeout}: each renewal's and release's own
	 */
	LeaseCalls(RedisCaller redis, RateLimiter limiter, long timeoutNanos, RateLimitEventRecorder events,
			LocalFallback fallback, DecisionObservations observations) {
		this.redis = redis;
		this.limiter = limiter;
		this.timeoutNanos = timeoutNanos;
		this.events = events;
		this.fallback = fallback;
		this.observations = observations;
		events.leases(this.renewals::held);
	}

	/** Gives back every lease {@code held} holds, without waiting ({@link #release(Reservation.Lease)}). */
	void release(Reservation held) {
		for (Reservation.Lease lease : held.takeLeases()) {
			release(lease);
		}
	}

	/** A lease taken for a call that runs on: renewed until the call gives it back ({@link LeaseRenewals}). */
	void renewing(Reservation.Lease lease) {
		this.renewals.hold(lease);
	}

	/**
	 * Gives back {@code lease} without waiting, and no longer renews it: in this instance's memory, or sent to Redis
	 * with a timeout of its own. A failure is counted and logged as any; the lease then expires after its lease time.
	 */
	void release(Reservation.Lease lease) {
		this.renewals.release(lease);
	}

	/** {@link #release(Reservation.Lease)}, sent. */
	private void giveBack(Reservation.Lease lease) {
		List<Settlement> settlements = Leases.giveBack(lease);
		if (lease.local()) {
			this.fallback.settle(lease.clientKey(), settlements);
			return;
		}
		DecisionObservations.Observed observed = this.observations.lease(RateLimitOperation.LEASE_RELEASE,
				lease.leases());
		CompletableFuture<?> release;
		try (Observation.Scope scope = observed.openScope()) {
			release = this.redis.bounded(() -> this.limiter.settleAsync(lease.clientKey(), settlements),
					System.nanoTime() + this.timeoutNanos);
		}
		release.whenComplete((released, failure) -> {
			if (failure != null) {
				this.redis.failed(failure);
				observed.error(failure);
				observed.stop(Outcome.FAILED);
			}
			else {
				this.redis.answered();
				observed.stop(Outcome.RELEASED);
			}
		});
	}

	/**
	 * Renews {@code lease}: the same acquire again, with its own timeout. Completes with whether the call still holds
	 * it; a lease lost (expired before it was renewed, or released by an operator) is taken again when the limit has
	 * room, else the call runs on without one, which is logged. A failure of Redis completes with true: the next
	 * renewal tries again.
	 */
	private CompletionStage<Boolean> renew(Reservation.Lease lease) {
		if (lease.local()) {
			return CompletableFuture.completedFuture(held(this.fallback.renew(lease.clientKey(), lease.leases())));
		}
		DecisionObservations.Observed observed = this.observations.lease(RateLimitOperation.LEASE_RENEWAL,
				lease.leases());
		CompletableFuture<RateLimitDecision> renewal;
		try (Observation.Scope scope = observed.openScope()) {
			renewal = this.redis.bounded(() -> this.limiter.tryAcquireAsync(lease.clientKey(), lease.leases()),
					System.nanoTime() + this.timeoutNanos);
		}
		return renewal.handle((decision, failure) -> {
			if (failure != null) {
				this.redis.failed(failure);
				observed.error(failure);
				observed.stop(Outcome.FAILED);
				return true;
			}
			this.redis.answered();
			boolean held = held(decision);
			observed.stop(held ? Outcome.RENEWED : Outcome.LOST);
			return held;
		});
	}

	private boolean held(RateLimitDecision renewal) {
		if (renewal.allowed() && renewal.shadowDenied().isEmpty()) {
			return true;
		}
		this.events.leaseLost(renewal.decisions()
			.stream()
			.filter((limit) -> !limit.allowed())
			.map((limit) -> limit.request().name())
			.toList());
		return false;
	}

}
