package dev.ratelimit.core;

import java.time.InstantSource;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The state of {@link InMemoryRateLimiter}: its clients, the store's clock on which their states expire, and the
 * sweep that drops expired clients. Shared by a limiter and the limiters its {@link InMemoryRateLimiter#withClock}
 * makes, as one Redis server is by its callers.
 *
 * <p>
 * Expired state is never read. It is dropped as its client is next decided, and otherwise by a sweep that runs on the
 * deciding threads (no thread of its own): it examines a few clients each time a new one arrives, so that removal
 * outpaces growth, and, while the store is used at all, a batch each second that passes over every client within
 * about a minute. A store that decides nothing at all sweeps nothing.
 */
final class MemoryStore {

	/** Clients examined for expiry each time a new client is added: more than one, so removal outpaces growth. */
	private static final int SWEEP_PER_NEW_CLIENT = 4;

	/** Clients examined at least once a second while the store is used: a pass over every client in a minute. */
	private static final int SWEEP_MIN_BATCH = 1024;

	private static final long SWEEP_BATCH_INTERVAL_MS = 1000;

	private static final int SWEEP_PASS_PER_BATCH = 64;

	/** The store's clock: relative TTLs count on it, as a Redis key's on the server's. */
	final InstantSource clock;

	private final ConcurrentHashMap<String, MemoryClient> clients = new ConcurrentHashMap<>();

	/** Held only by the thread sweeping expired clients; decisions never wait for it. */
	private final ReentrantLock sweeping = new ReentrantLock();

	/** Where the sweep goes on; guarded by {@link #sweeping}. */
	private @Nullable Iterator<MemoryClient> sweep;

	/** How many clients there were when the sweep's pass under way began; guarded by {@link #sweeping}. */
	private int passSize;

	/** When, on the clock, the next batch of the sweep is due: expired clients go even when no new one arrives. */
	private volatile long nextBatchAt = Long.MIN_VALUE;

	/** The announcements of releases (concurrency.lua's PUBLISH). */
	final MemoryLeaseReleases releases = new MemoryLeaseReleases();

	/** The usage of the limits that record it (usage.lua's sets). */
	final MemoryUsage usage = new MemoryUsage();

	MemoryStore(InstantSource clock) {
		this.clock = clock;
	}

	/**
	 * Decides (or with {@code commit} false, peeks) at {@code time} in ms, or when empty at the store's clock, read
	 * inside the client's monitor so that one client's decisions see it in order, as the script's {@code TIME}.
	 */
	RateLimitDecision decide(String clientId, List<LimitRequest> limits, OptionalLong time, boolean commit) {
		if (!commit) {
			// decided on a state of its own that is never stored, as peek.lua reads a missing key without writing it
			MemoryClient client = this.clients.get(clientId);
			client = (client != null) ? client : new MemoryClient(clientId);
			synchronized (client) {
				long clockNow = this.clock.millis();
				// a client swept meanwhile had only expired states, which deciding finds gone as well
				return client.decide(now(time, clockNow), clockNow, limits, false, this.usage);
			}
		}
		return write(clientId,
				(client, clockNow) -> client.decide(now(time, clockNow), clockNow, limits, true, this.usage));
	}

	/** settle.lua at {@code time} in ms, or when empty at the store's clock, as {@link #decide} decides. */
	RateLimitDecision settle(String clientId, List<Settlement> settlements, OptionalLong time) {
		return write(clientId,
				(client, clockNow) -> client.settle(now(time, clockNow), clockNow, settlements, this.releases,
						this.usage));
	}

	/** A call that may write {@code clientId}'s states, in its monitor, with the store's clock read there. */
	private RateLimitDecision write(String clientId, BiFunction<MemoryClient, Long, RateLimitDecision> call) {
		while (true) {
			boolean added = false;
			MemoryClient client = this.clients.get(clientId);
			if (client == null) {
				MemoryClient fresh = new MemoryClient(clientId);
				client = this.clients.putIfAbsent(clientId, fresh);
				added = client == null;
				client = added ? fresh : client;
			}
			RateLimitDecision decision;
			long clockNow;
			synchronized (client) {
				if (client.removed) {
					// swept between the lookup and the lock: decide on a new state
					continue;
				}
				clockNow = this.clock.millis();
				decision = call.apply(client, clockNow);
			}
			if (added || clockNow >= this.nextBatchAt) {
				sweepSome(!added, clockNow);
			}
			return decision;
		}
	}

	private static long now(OptionalLong time, long clockNow) {
		return time.isPresent() ? time.getAsLong() : clockNow;
	}

	/** reset.lua on the client's states, if it has any. */
	int reset(String clientId, List<LimitDefinition> limits) {
		MemoryClient client = this.clients.get(clientId);
		if (client == null) {
			return 0;
		}
		synchronized (client) {
			return client.removed ? 0 : client.reset(limits, this.clock.millis());
		}
	}

	/**
	 * Deletes every client's states, as {@link #reset} would one by one; returns how many had not expired. A client
	 * decided meanwhile finds its state removed and decides on a new one, as after a sweep.
	 */
	long resetAll() {
		long deleted = 0;
		for (MemoryClient client : this.clients.values()) {
			synchronized (client) {
				if (!client.removed) {
					deleted += client.resetAll(this.clock.millis());
				}
				this.clients.remove(client.id, client);
			}
		}
		return deleted;
	}

	/** What {@code read} makes of the stored state of {@code limit} for {@code clientId}; for tests. */
	<T> Optional<T> read(String clientId, LimitDefinition limit, Function<MemoryState, T> read) {
		MemoryClient client = this.clients.get(clientId);
		if (client == null) {
			return Optional.empty();
		}
		synchronized (client) {
			MemoryState state = client.find(limit);
			return (state != null && state.stored) ? Optional.of(read.apply(state)) : Optional.empty();
		}
	}

	/** How many clients have state in memory, expired or not yet swept. */
	int size() {
		return this.clients.size();
	}

	/**
	 * Examines clients where the sweep left off, and removes those whose every state has expired on the store's
	 * clock: a few for a new client, or a batch, a 64th of the pass under way (at least 1,024), so that a pass takes
	 * at most 64 batches. Sets when the next batch is due, a second from now.
	 */
	private void sweepSome(boolean batch, long clockNow) {
		if (!this.sweeping.tryLock()) {
			return;
		}
		try {
			if (batch || clockNow >= this.nextBatchAt) {
				batch = true;
				this.nextBatchAt = clockNow + SWEEP_BATCH_INTERVAL_MS;
			}
			int steps = batch ? Math.max(SWEEP_MIN_BATCH, this.passSize / SWEEP_PASS_PER_BATCH) : SWEEP_PER_NEW_CLIENT;
			boolean passStarted = false;
			for (int i = 0; i < steps; i++) {
				if (this.sweep == null || !this.sweep.hasNext()) {
					if (passStarted) {
						// at most one new pass per call: a pass walks the whole table, which never shrinks, so a
						// table holding few clients would otherwise be walked once per step
						return;
					}
					passStarted = true;
					this.passSize = this.clients.size();
					this.sweep = this.clients.values().iterator();
					if (!this.sweep.hasNext()) {
						return;
					}
				}
				remove(this.sweep.next(), clockNow);
			}
		}
		finally {
			this.sweeping.unlock();
		}
	}

	private void remove(MemoryClient client, long clockNow) {
		synchronized (client) {
			if (!client.removed && client.deadline < clockNow) {
				client.removed = true;
				this.clients.remove(client.id, client);
			}
		}
	}

}
