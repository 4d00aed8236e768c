package dev.ratelimit.core;

import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

import org.jspecify.annotations.Nullable;

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
 * The limiter has a clock, its store's: it decides at that clock's time, and counts each state's lifetime on it.
 * State lives as long as the Redis key of the same decision would: for the relative TTL the script would set
 * (computed from the request's time, with the scripts' margin of 1 s), counted on the store's clock from its last
 * write, as Redis counts a TTL on its own clock. A limiter made by {@link #withClock} decides at another clock's time
 * on the same state, as a Redis limiter given a clock decides on the server's keys: a time past a state's TTL expires
 * nothing, as it expires no Redis key, so a request stepping back after it is still decided at the stored time.
 * Memory holds about the clients written within the longest TTL (plus those the sweep has not reached yet), not every
 * client ever seen: a scan over a million client ids does not grow the heap without bound, and its state is gone
 * about a minute after its TTL even if no new client follows ({@code MemoryStore}).
 */
public final class InMemoryRateLimiter implements RateLimiter {

	private final MemoryStore store;

	/** The time of decisions, or {@code null} for the store's clock. */
	private final @Nullable InstantSource time;

	/** A limiter on the system clock ({@link InstantSource#system()}). */
	public InMemoryRateLimiter() {
		this(InstantSource.system());
	}

	/**
	 * A limiter on {@code clock} (a {@link java.time.Clock} is one): the time of its decisions and the clock that
	 * relative TTLs are counted on, so that a test can move time instead of sleeping.
	 */
	public InMemoryRateLimiter(InstantSource clock) {
		this(new MemoryStore(Objects.requireNonNull(clock, "clock must not be null")), null);
	}

	private InMemoryRateLimiter(MemoryStore store, @Nullable InstantSource time) {
		this.store = store;
		this.time = time;
	}

	/**
	 * A limiter on this one's state that decides at {@code clock}'s time; states still expire on this limiter's own
	 * clock. See {@link RateLimiter#withClock}.
	 */
	@Override
	public InMemoryRateLimiter withClock(InstantSource clock) {
		return new InMemoryRateLimiter(this.store, Objects.requireNonNull(clock, "clock must not be null"));
	}

	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitRequest> limits) {
		Requests.check(clientId, limits);
		return this.store.decide(clientId, limits, time(), true);
	}

	@Override
	public LimitDecision peek(String clientId, LimitRequest limit) {
		List<LimitRequest> limits = List.of(limit);
		Requests.checkPeek(clientId);
		return this.store.decide(clientId, limits, time(), false).decisions().get(0);
	}

	/** The time of a decision when this limiter has a clock of its own, checked before anything is stored. */
	private OptionalLong time() {
		return (this.time != null) ? OptionalLong.of(Requests.timeOf(this.time)) : OptionalLong.empty();
	}

	@Override
	public RateLimitDecision settle(String clientId, List<Settlement> settlements) {
		Requests.checkSettle(clientId, settlements);
		return this.store.settle(clientId, settlements, time());
	}

	@Override
	public List<HeldLease> leases(String clientId, LimitDefinition limit) {
		Requests.checkLeases(clientId, limit);
		long now = (this.time != null) ? Requests.timeOf(this.time) : this.store.clock.millis();
		return this.store.read(clientId, limit, (state) -> ((MemoryConcurrency) state).leases(now)).orElse(List.of());
	}

	/** One page of the limit's usage, sorted in memory; the period found by this limiter's clock. */
	@Override
	public Usage usage(LimitDefinition limit, Usage.Period period, int page, int size) {
		Requests.checkUsage(limit, period, page, size);
		long clockNow = this.store.clock.millis();
		long now = (this.time != null) ? Requests.timeOf(this.time) : clockNow;
		return this.store.usage.read(limit, period, page, size, now, clockNow);
	}

	@Override
	public int reset(String clientId, List<LimitDefinition> limits) {
		Requests.checkReset(clientId, limits);
		int reset = this.store.reset(clientId, limits);
		AcquireLines.reset(clientId);
		return reset;
	}

	/**
	 * Deletes the state of every client (their counts and leases) in this limiter's store, which it shares with the
	 * limiters its {@link #withClock} made. See {@link RateLimiter#resetAll}.
	 */
	@Override
	public long resetAll() {
		long deleted = this.store.resetAll();
		AcquireLines.resetAll();
		return deleted;
	}

	/**
	 * The announcements of this limiter's releases of full concurrency limits, made in this JVM as the release runs
	 * (on the releasing thread), to the one listener of the store that this limiter shares with those made by
	 * {@link #withClock}.
	 */
	public LeaseReleases releases() {
		return this.store.releases;
	}

	/** How many clients have state in memory, expired or not yet swept; for tests. */
	int storedClients() {
		return this.store.size();
	}

	/**
	 * When, on the store's clock, the state of {@code limit} for {@code clientId} expires (it is gone once the clock
	 * is past it), or empty when there is none; for tests that compare it with the expiry of the Redis key.
	 */
	Optional<Long> deadline(String clientId, LimitDefinition limit) {
		return this.store.read(clientId, limit, (state) -> state.deadline);
	}

	/**
	 * When, on the store's clock, the usage of {@code limit} in the period {@code [start, end)} expires, or empty when
	 * it has none; for tests that compare it with the expiry of the Redis key.
	 */
	Optional<Long> usageDeadline(LimitDefinition limit, long start, long end) {
		return Optional.ofNullable(this.store.usage.deadline(limit, start, end));
	}

	/** The state of {@code limit} for {@code clientId} as text, or "(no state)"; for tests and failure messages. */
	String describe(String clientId, LimitDefinition limit) {
		return this.store.read(clientId, limit, MemoryState::toString).orElse("(no state)");
	}

}
