package dev.ratelimit.core;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link RateLimiter} in this JVM's memory, for one instance alone: the four algorithms with exactly the
 * decisions of the Redis scripts ({@code docs/ALGORITHMS.md}; the same tests run against both), for applications
 * and tests without Redis and as the starter's local fallback while Redis fails. Limits are not shared between
 * instances: each JVM counts its own requests.
 *
 * <p>
 * Thread-safe without a global lock: each client's state has its own monitor, so decisions of different clients
 * run in parallel and several limits of one client are decided together, all or nothing, as one script call is.
 *
 * <p>
 * State lives as long as the Redis key of the same decision would: for the relative TTL the script would set
 * (computed from the request's {@code now}, this limiter's clock or an explicit time, with the scripts' margin of
 * 1 s), counted on this limiter's clock from its last write, as Redis counts a TTL on its own clock. An explicit
 * {@code now} past that TTL expires nothing, as it expires no Redis key: a request stepping back after it is still
 * decided at the stored time. Expired state is never read. It is dropped as its client is next decided, and
 * otherwise by a sweep that runs on the deciding threads (no thread of its own): it examines a few clients each time
 * a new one arrives, so that removal outpaces growth, and, while the limiter is used at all, a batch each second that
 * passes over every client within about a minute. Memory holds about the clients written within the longest TTL
 * (plus those the sweep has not reached yet), not every client ever seen: a scan over a million client ids does not
 * grow the heap without bound, and its state is gone about a minute after its TTL even if no new client follows. A
 * limiter that decides nothing at all sweeps nothing.
 */
public final class InMemoryRateLimiter implements RateLimiter {

	/** Clients examined for expiry each time a new client is added: more than one, so removal outpaces growth. */
	private static final int SWEEP_PER_NEW_CLIENT = 4;

	/** Clients examined at least once a second while the limiter is used: a pass over every client in a minute. */
	private static final int SWEEP_MIN_BATCH = 1024;

	private static final long SWEEP_BATCH_INTERVAL_MS = 1000;

	private static final int SWEEP_PASS_PER_BATCH = 64;

	private final Clock clock;

	private final ConcurrentHashMap<String, ClientState> clients = new ConcurrentHashMap<>();

	/** Held only by the thread sweeping expired clients; decisions never wait for it. */
	private final ReentrantLock sweeping = new ReentrantLock();

	/** Where the sweep goes on; guarded by {@link #sweeping}. */
	private Iterator<ClientState> sweep;

	/** How many clients there were when the sweep's pass under way began; guarded by {@link #sweeping}. */
	private int passSize;

	/** When, on the clock, the next batch of the sweep is due: expired clients go even when no new one arrives. */
	private volatile long nextBatchAt = Long.MIN_VALUE;

	/** A limiter on the system clock ({@link Clock#systemUTC()}). */
	public InMemoryRateLimiter() {
		this(Clock.systemUTC());
	}

	/**
	 * A limiter on {@code clock}: the time of {@link #tryAcquire(String, List)} and the clock that relative TTLs are
	 * counted on, so that a test can move time instead of sleeping.
	 */
	public InMemoryRateLimiter(Clock clock) {
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
	}

	/**
	 * Decides one request at this limiter's clock.
	 * @throws IllegalArgumentException if {@code limits} is empty or two limits share a name
	 */
	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitDefinition> limits) {
		return decide(clientId, limits, -1);
	}

	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitDefinition> limits, long nowMs) {
		Requests.checkTime(nowMs);
		return decide(clientId, limits, nowMs);
	}

	/** Reads the state at this limiter's clock. */
	@Override
	public LimitDecision peek(String clientId, LimitDefinition limit) {
		return look(clientId, limit, -1);
	}

	@Override
	public LimitDecision peek(String clientId, LimitDefinition limit, long nowMs) {
		Requests.checkTime(nowMs);
		return look(clientId, limit, nowMs);
	}

	private LimitDecision look(String clientId, LimitDefinition limit, long explicitNow) {
		List<LimitDefinition> limits = List.of(limit);
		Requests.check(clientId, limits);
		ClientState client = this.clients.get(clientId);
		if (client == null) {
			// decided on a state of its own that is never stored, as peek.lua reads a missing key without writing it
			client = new ClientState(clientId);
		}
		synchronized (client) {
			long clockNow = this.clock.millis();
			// a client swept meanwhile had only expired states, which deciding finds gone as well
			return client.decide((explicitNow < 0) ? clockNow : explicitNow, clockNow, limits, false)
				.decisions()
				.get(0);
		}
	}

	@Override
	public int reset(String clientId, List<LimitDefinition> limits) {
		Requests.checkReset(clientId, limits);
		ClientState client = this.clients.get(clientId);
		if (client == null) {
			return 0;
		}
		synchronized (client) {
			return client.removed ? 0 : client.reset(limits, this.clock.millis());
		}
	}

	private RateLimitDecision decide(String clientId, List<LimitDefinition> limits, long explicitNow) {
		Requests.check(clientId, limits);
		while (true) {
			boolean added = false;
			ClientState client = this.clients.get(clientId);
			if (client == null) {
				ClientState fresh = new ClientState(clientId);
				client = this.clients.putIfAbsent(clientId, fresh);
				if (client == null) {
					client = fresh;
					added = true;
				}
			}
			RateLimitDecision decision;
			long clockNow;
			synchronized (client) {
				if (client.removed) {
					// swept between the lookup and the lock: decide on a new state
					continue;
				}
				// read inside the monitor, so that one client's decisions see its clock in order, as the script's TIME
				clockNow = this.clock.millis();
				decision = client.decide((explicitNow < 0) ? clockNow : explicitNow, clockNow, limits, true);
			}
			if (added || clockNow >= this.nextBatchAt) {
				sweepSome(!added, clockNow);
			}
			return decision;
		}
	}

	/**
	 * Examines clients where the sweep left off, and removes those whose every state has expired on this limiter's
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
				ClientState client = this.sweep.next();
				synchronized (client) {
					if (!client.removed && client.deadline < clockNow) {
						client.removed = true;
						this.clients.remove(client.id, client);
					}
				}
			}
		}
		finally {
			this.sweeping.unlock();
		}
	}

	/** How many clients have state in memory, expired or not yet swept; for tests. */
	int storedClients() {
		return this.clients.size();
	}

	/**
	 * When, on this limiter's clock, the state of {@code limit} for {@code clientId} expires (it is gone once the
	 * clock is past it), or -1 when there is none; for tests that compare it with the expiry of the Redis key.
	 */
	long deadline(String clientId, LimitDefinition limit) {
		ClientState client = this.clients.get(clientId);
		if (client == null) {
			return -1;
		}
		synchronized (client) {
			MemoryState state = client.find(limit);
			return (state != null && state.stored) ? state.deadline : -1;
		}
	}

	/** The state of {@code limit} for {@code clientId} as text, or "(no state)"; for tests and failure messages. */
	String describe(String clientId, LimitDefinition limit) {
		ClientState client = this.clients.get(clientId);
		if (client == null) {
			return "(no state)";
		}
		synchronized (client) {
			MemoryState state = client.find(limit);
			return (state != null && state.stored) ? state.toString() : "(no state)";
		}
	}

	/** The states of one client, one per limit identity; guarded by its own monitor. */
	private static final class ClientState {

		final String id;

		/** Limit identities (name, algorithm, window, as in the Redis key) and their states, in parallel. */
		private final List<LimitDefinition> identities = new ArrayList<>(2);

		private final List<MemoryState> states = new ArrayList<>(2);

		/** When every state here has expired on the limiter's clock; none can expire while it is first decided. */
		long deadline = Long.MAX_VALUE;

		boolean removed;

		ClientState(String id) {
			this.id = id;
		}

		MemoryState find(LimitDefinition limit) {
			for (int i = 0; i < this.identities.size(); i++) {
				LimitDefinition identity = this.identities.get(i);
				if (identity.name().equals(limit.name()) && identity.algorithm() == limit.algorithm()
						&& identity.windowMs() == limit.windowMs()) {
					return this.states.get(i);
				}
			}
			return null;
		}

		/**
		 * rate_limit.lua: every limit decides, and only if all allow does every limit write the request; with
		 * {@code commit} false, peek.lua: nothing is written.
		 */
		RateLimitDecision decide(long now, long clockNow, List<LimitDefinition> limits, boolean commit) {
			int size = limits.size();
			MemoryState[] used = new MemoryState[size];
			boolean[] listed = new boolean[size];
			MemoryState.Verdict[] verdicts = new MemoryState.Verdict[size];
			boolean allAllowed = true;
			for (int i = 0; i < size; i++) {
				LimitDefinition limit = limits.get(i);
				MemoryState state = find(limit);
				if (state != null && state.expired(clockNow)) {
					// the Redis key would be gone: the request finds no state
					remove(state);
					state = null;
				}
				listed[i] = state != null;
				if (state == null) {
					state = MemoryState.create(limit.algorithm());
				}
				used[i] = state;
				verdicts[i] = state.decide(now, clockNow, limit);
				if (!limit.shadow()) {
					allAllowed &= verdicts[i].allowed;
				}
			}
			List<LimitDecision> decisions = new ArrayList<>(size);
			for (int i = 0; i < size; i++) {
				if (commit && allAllowed && verdicts[i].allowed) {
					verdicts[i].commit();
				}
				if (used[i].stored && !listed[i]) {
					this.identities.add(limits.get(i));
					this.states.add(used[i]);
				}
				else if (!used[i].stored && listed[i]) {
					// deciding emptied it (a sliding log trimmed to nothing), as the script's ZREMRANGEBYSCORE
					// deletes its key
					remove(used[i]);
				}
				decisions.add(verdicts[i].toDecision(limits.get(i)));
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

}
