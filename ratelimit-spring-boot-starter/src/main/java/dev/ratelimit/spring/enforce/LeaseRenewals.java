package dev.ratelimit.spring.enforce;

import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.ratelimit.core.LimitRequest;

/**
 * Keeps the leases of calls still running on this instance: each is renewed (taken again with the same lease id,
 * docs/ALGORITHMS.md "Concurrency") once a third of its lease time has passed since it was taken or last renewed, so
 * that a call longer than the lease time keeps its lease, while the lease of an instance that died expires within one
 * lease time. One daemon thread of the limiter's looks for due renewals every {@value #TICK_MS} ms, and only while
 * leases are held; the renewals themselves are asynchronous calls.
 *
 * <p>
 * A renewal and the release of the same lease are never sent in the wrong order by this instance: a release marks the
 * lease released before it is sent, a renewal is sent only for a lease not released, and a renewal that was on its
 * way when the call ended is followed by another release once it is answered (with a pool of connections, the two
 * could reach Redis in either order).
 */
final class LeaseRenewals {

	/** How often due renewals are looked for: a lease time of at least 1 s is renewed well before it runs out. */
	static final long TICK_MS = 250;

	private static final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
		Thread thread = new Thread(task, "ratelimit-lease-renewals");
		thread.setDaemon(true);
		return thread;
	});

	/** One lease's renewals; guarded by its own monitor. */
	private static final class Renewal {

		/** When the next renewal is due ({@link System#nanoTime()}), unless one is on its way. */
		long dueAt;

		boolean sending;

		boolean released;

		Renewal(long dueAt) {
			this.dueAt = dueAt;
		}

	}

	private final Map<Reservation.Lease, Renewal> held = new ConcurrentHashMap<>();

	private final AtomicBoolean ticking = new AtomicBoolean();

	private final Function<Reservation.Lease, CompletionStage<Boolean>> renew;

	private final Consumer<Reservation.Lease> giveBack;

	/**
	 * @param renew sends the renewal of a lease; completes with whether the call still holds it (false: the lease was
	 * lost and the limit is full, so it is no longer renewed)
	 * @param giveBack sends the release of a lease
	 */
	LeaseRenewals(Function<Reservation.Lease, CompletionStage<Boolean>> renew, Consumer<Reservation.Lease> giveBack) {
		this.renew = renew;
		this.giveBack = giveBack;
	}

	/** Renews {@code lease} from now on, while its call runs. */
	void hold(Reservation.Lease lease) {
		this.held.put(lease, new Renewal(System.nanoTime() + intervalNanos(lease)));
		if (this.ticking.compareAndSet(false, true)) {
			timer.schedule(this::tick, TICK_MS, TimeUnit.MILLISECONDS);
		}
	}

	/** The call has ended: gives {@code lease} back, and no longer renews it. */
	void release(Reservation.Lease lease) {
		Renewal renewal = this.held.remove(lease);
		if (renewal != null) {
			synchronized (renewal) {
				renewal.released = true;
			}
		}
		this.giveBack.accept(lease);
	}

	/** How many leases are renewed; for metrics and tests. */
	int held() {
		return this.held.size();
	}

	private void tick() {
		long now = System.nanoTime();
		for (Map.Entry<Reservation.Lease, Renewal> entry : this.held.entrySet()) {
			Renewal renewal = entry.getValue();
			synchronized (renewal) {
				if (renewal.released || renewal.sending || renewal.dueAt - now > 0) {
					continue;
				}
				renewal.sending = true;
				send(entry.getKey(), renewal);
			}
		}
		this.ticking.set(false);
		// a lease added meanwhile scheduled a tick of its own, or this one goes on
		if (!this.held.isEmpty() && this.ticking.compareAndSet(false, true)) {
			timer.schedule(this::tick, TICK_MS, TimeUnit.MILLISECONDS);
		}
	}

	private void send(Reservation.Lease lease, Renewal renewal) {
		this.renew.apply(lease).whenComplete((stillHeld, failure) -> {
			boolean releaseAgain;
			synchronized (renewal) {
				renewal.sending = false;
				renewal.dueAt = System.nanoTime() + intervalNanos(lease);
				releaseAgain = renewal.released;
			}
			if (releaseAgain) {
				// released while this renewal was on its way, which may have reached Redis after the release
				this.giveBack.accept(lease);
			}
			else if (failure == null && !Boolean.TRUE.equals(stillHeld)) {
				this.held.remove(lease, renewal);
			}
		});
	}

	/** A third of the shortest lease time among the lease's limits. */
	private static long intervalNanos(Reservation.Lease lease) {
		long shortest = Long.MAX_VALUE;
		for (LimitRequest request : lease.leases()) {
			shortest = Math.min(shortest, request.definition().windowMs());
		}
		return TimeUnit.MILLISECONDS.toNanos(shortest) / 3;
	}

}
