package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.core.LeaseReleases;
import dev.ratelimit.core.LimitDefinition;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * This instance's callers waiting for a lease of a concurrency limit, woken when one is given back
 * (docs/ALGORITHMS.md, "Waiting for a lease"): the limiter announces each release by a full limit
 * ({@link LeaseReleases}, Redis pub/sub on a connection of its own, subscribed at the first wait), and each
 * announcement wakes the caller of this instance that has waited longest for that limit and client, one per release.
 * A woken caller decides again; denied (a caller elsewhere took the lease first), it waits again in its place. A
 * caller also decides again at its denial's earliest lease expiry, and gives up at its max wait, so a lost
 * announcement costs time, never a lease; a new subscription (the connection was lost) wakes every caller, since any
 * release meanwhile went unheard. Nothing polls.
 *
 * <p>
 * Fairness holds within one instance only: every instance with a caller waiting hears a release, and the first to
 * reach Redis takes the lease. Closing it closes the announcements' connection.
 */
public final class LeaseWaits implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseWaits.class);

	private static final long HINT_NANOS = TimeUnit.MILLISECONDS.toNanos(ConcurrencyHint.HINT_MS);

	private final @Nullable LeaseReleases releases;

	/** The channels that callers wait on, with how many callers each; a channel without one is removed. */
	private final ConcurrentHashMap<String, LeaseChannel> channels = new ConcurrentHashMap<>();

	private final AtomicLong arrivals = new AtomicLong();

	/** Whether the last subscription failed: callers then decide again after the concurrency hint. */
	private volatile boolean unheard;

	/** The subscription whose outcome is watched: each new one, once. */
	private final AtomicReference<@Nullable CompletableFuture<Void>> watched = new AtomicReference<>();

	private final AtomicBoolean warned = new AtomicBoolean();

	/** What the announcements are told to: one listener, whichever wait subscribes first. */
	private final LeaseReleases.Listener listener = new LeaseReleases.Listener() {

		@Override
		public void released(String channel) {
			LeaseChannel waited = LeaseWaits.this.channels.get(channel);
			if (waited != null) {
				waited.released(false);
			}
		}

		@Override
		public void subscribed() {
			LeaseWaits.this.unheard = false;
			LeaseWaits.this.warned.set(false);
			LeaseWaits.this.channels.values().forEach((channel) -> channel.released(true));
		}

	};

	/**
	 * @param releases where the limiter announces releases; {@code null} when it announces none (an application's
	 * own limiter), and callers wait the concurrency hint between attempts instead
	 */
	public LeaseWaits(@Nullable LeaseReleases releases) {
		this.releases = releases;
	}

	/** Whether releases are announced: a caller waits for one rather than retry after the concurrency hint. */
	boolean announced() {
		return this.releases != null;
	}

	/** The wait of one call, across its attempts; {@link Waiter#done()} when it ends, however. */
	Waiter waiter() {
		return new Waiter(this.arrivals.incrementAndGet());
	}

	@Override
	public void close() {
		if (this.releases != null) {
			this.releases.close();
		}
	}

	/** Whether the subscription is in place; subscribes (again, after a failure) when it is not. */
	private boolean listening(LeaseReleases releases) {
		CompletableFuture<Void> subscribed = releases.listen(this.listener);
		if (this.watched.getAndSet(subscribed) != subscribed) {
			// off the subscription's I/O thread: a log line may block
			subscribed.whenCompleteAsync((done, failure) -> {
				this.unheard = failure != null;
				if (failure != null) {
					logUnheard(failure);
					// callers parked while it was made wait for nothing: they decide again, then after the hint
					this.channels.values().forEach((channel) -> channel.released(true));
				}
			}, ForkJoinPool.commonPool());
		}
		return subscribed.isDone() && !subscribed.isCompletedExceptionally();
	}

	/** Once per streak of failed subscriptions. */
	private void logUnheard(Throwable failure) {
		if (this.warned.compareAndSet(false, true)) {
			logger.warn("Callers waiting for a lease of a concurrency limit decide again every " + ConcurrencyHint.HINT_MS
					+ " ms: the releases cannot be subscribed to (the Redis user needs PUBLISH, PSUBSCRIBE and the "
					+ "channels of its key prefix, docs/FAILURES.md): " + failure);
		}
	}

	/** One call's wait for a lease, across its attempts. Used by one attempt at a time. */
	final class Waiter {

		private final long arrival;

		/** The channels this call waits on, with the releases heard when its last attempt was sent (-1: unknown). */
		private final Map<LeaseChannel, Long> seen = new HashMap<>(2);

		private Waiter(long arrival) {
			this.arrival = arrival;
		}

		/** An attempt is about to be sent: a release heard from now on may have come after it. */
		void attempting() {
			this.seen.replaceAll((channel, heard) -> channel.heard());
		}

		/**
		 * Waits for a release of one of {@code limits}' leases of {@code clientKey}: at most until the earliest lease
		 * expiry, when it decides again, or until {@code leftNanos} have passed, when it gives up. Without a
		 * subscription (it could not be made: an ACL user without the channels, say) it decides again after the
		 * concurrency hint instead of the expiry.
		 * @param expiryNanos the earliest lease expiry, from now
		 * @param leftNanos what is left of the max wait
		 * @return completes with {@code true} to decide again, {@code false} to give up; cancelling it ends the wait
		 */
		CompletableFuture<Boolean> pause(String clientKey, List<LimitDefinition> limits, long expiryNanos,
				long leftNanos) {
			LeaseReleases announcing = LeaseWaits.this.releases;
			if (announcing == null) {
				throw new IllegalStateException("no releases are announced");
			}
			// at every wait: a subscription that could not be made is tried again
			boolean listening = listening(announcing);
			long retryNanos = LeaseWaits.this.unheard ? Math.min(expiryNanos, HINT_NANOS) : expiryNanos;
			long timerNanos = Math.min(retryNanos, leftNanos);
			boolean atTimer = retryNanos < leftNanos;
			for (LimitDefinition limit : limits) {
				register(announcing.channel(clientKey, limit), listening);
			}
			LeasePause pause = new LeasePause(this.arrival);
			List<LeaseChannel> parked = new ArrayList<>(this.seen.size());
			for (Map.Entry<LeaseChannel, Long> waited : this.seen.entrySet()) {
				if (!waited.getKey().park(pause, waited.getValue())) {
					// heard a release since the attempt was sent, or began to listen after it
					pause.wake(true);
					break;
				}
				parked.add(waited.getKey());
			}
			ScheduledFuture<?> timer = WaitTimer.after(timerNanos, () -> pause.wake(atTimer));
			pause.result.whenCompleteAsync((retry, failure) -> {
				pause.settled.set(true);
				timer.cancel(false);
				parked.forEach((channel) -> channel.unpark(pause));
				if (pause.result.isCancelled() && pause.byRelease) {
					// woken by a release as its caller went away: the release is the next caller's
					parked.forEach((channel) -> channel.wakeNext(false));
				}
			}, ForkJoinPool.commonPool());
			return pause.result;
		}

		/**
		 * Listens to {@code name}, unless it does already. While the subscription is made, what the channel heard
		 * so far counts as seen: the subscription, when made, wakes every caller, who then decides again. Once made,
		 * nothing counts as seen: a release may have come between the attempt and now, unheard, so the caller decides
		 * again at once.
		 */
		private void register(String name, boolean listening) {
			for (LeaseChannel registered : this.seen.keySet()) {
				if (registered.name.equals(name)) {
					return;
				}
			}
			LeaseChannel channel = LeaseWaits.this.channels.compute(name, (key, existing) -> {
				LeaseChannel registered = (existing != null) ? existing : new LeaseChannel(name);
				registered.callers++;
				return registered;
			});
			this.seen.put(channel, listening ? -1L : channel.heard());
		}

		/**
		 * The call was admitted with room left in {@code limits} beside its lease: the release that woke it freed more
		 * than one lease (two calls ended at once), but a release is announced only by a full limit, so the next
		 * caller here that waits for them decides again now, as if announced.
		 */
		void roomLeft(String clientKey, List<LimitDefinition> limits) {
			LeaseReleases announcing = LeaseWaits.this.releases;
			if (announcing == null) {
				return;
			}
			for (LimitDefinition limit : limits) {
				LeaseChannel waited = LeaseWaits.this.channels.get(announcing.channel(clientKey, limit));
				if (waited != null) {
					waited.released(false);
				}
			}
		}

		/** The call waits no more (admitted, given up, cancelled): its channels forget it. */
		void done() {
			for (LeaseChannel registered : this.seen.keySet()) {
				LeaseWaits.this.channels.computeIfPresent(registered.name,
						(key, channel) -> (--channel.callers == 0) ? null : channel);
			}
			this.seen.clear();
		}

	}

}
