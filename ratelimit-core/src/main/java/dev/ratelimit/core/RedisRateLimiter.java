package dev.ratelimit.core;

import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.IntConsumer;

import dev.ratelimit.core.ScriptCalls.Call;

import org.jspecify.annotations.Nullable;

/**
 * The {@link RateLimiter} on Redis: one call of {@link LuaScript#rateLimit(java.util.Collection)} (the script of the
 * limits' algorithms) per decision, whatever the number of limits, through a {@link ScriptExecutor}; decisions that
 * arrive while one is in flight leave together in one call when it returns, each decided as alone, in arrival order
 * ({@link #withoutBatches()}). Keys follow
 * {@code <prefix>{<client>}:<name>:<algorithm>:<window>} (see {@code RedisKeys}), so they are Redis Cluster safe. Decisions are taken at the Redis server's time
 * ({@code TIME}, read by the script), or at the time of the clock given to {@link #withClock}.
 */
public final class RedisRateLimiter implements RateLimiter {

	/** Key prefix used when none is given. */
	public static final String DEFAULT_KEY_PREFIX = "rl:";

	/** Told nothing: a limiter without {@link #withBatchSizes}. */
	private static final IntConsumer NO_SIZES = (size) -> {
	};

	private final ScriptExecutor executor;

	private final RedisKeys keys;

	/** The time of decisions, or {@code null} for the server's {@code TIME}. */
	private final @Nullable InstantSource clock;

	private final RedisUsage usage;

	/** What the scripts are called with. */
	private final ScriptCalls calls;

	/** Told the number of decisions each decision script call carries. */
	private final IntConsumer batchSizes;

	/** The decisions' lanes, or {@code null} when each decision is sent alone ({@link #withoutBatches()}). */
	private final @Nullable DecisionBatches batches;

	/** A limiter on {@code executor} with keys under {@value #DEFAULT_KEY_PREFIX}, at the server's time. */
	public RedisRateLimiter(ScriptExecutor executor) {
		this(executor, DEFAULT_KEY_PREFIX);
	}

	/**
	 * A limiter on {@code executor} with keys under {@code keyPrefix}, at the server's time.
	 * @throws IllegalArgumentException if the prefix contains a brace
	 */
	public RedisRateLimiter(ScriptExecutor executor, String keyPrefix) {
		this(Objects.requireNonNull(executor, "executor must not be null"),
				new RedisKeys(Objects.requireNonNull(keyPrefix, "keyPrefix must not be null")), null, false, NO_SIZES,
				true);
	}

	private RedisRateLimiter(ScriptExecutor executor, RedisKeys keys, @Nullable InstantSource clock, boolean cluster,
			IntConsumer batchSizes, boolean batching) {
		this.executor = executor;
		this.keys = keys;
		this.clock = clock;
		this.usage = new RedisUsage(keys, cluster);
		this.calls = new ScriptCalls(keys, clock, this.usage);
		this.batchSizes = batchSizes;
		this.batches = batching ? new DecisionBatches(executor, cluster, batchSizes) : null;
	}

	/**
	 * This limiter (same executor, keys and clock) for a Redis Cluster: limits that record usage keep it per hash
	 * slot, beside their clients' keys, since a script touches the keys of one slot only; a read of usage visits
	 * every slot (docs/ALGORITHMS.md, "Usage"). Without it, a decision of a limit that records usage fails on a
	 * Cluster ({@code CROSSSLOT}). Decisions are batched per hash slot rather than together (the keys of one script
	 * call must share a slot); without it, a batch that a Cluster refuses for its slots is sent again decision by
	 * decision, which costs a refused call per batch.
	 */
	public RedisRateLimiter onCluster() {
		return new RedisRateLimiter(this.executor, this.keys, this.clock, true, this.batchSizes, this.batches != null);
	}

	/**
	 * This limiter (same executor, keys, clock and topology) telling {@code sizes} the number of decisions each call
	 * of a decision script carried once its reply is in (1 for a decision sent alone; see {@link #withoutBatches()}),
	 * on the thread that reads the reply: the distribution an operator watches to see the batching. It must be quick
	 * and must not block; what it throws is ignored.
	 */
	public RedisRateLimiter withBatchSizes(IntConsumer sizes) {
		Objects.requireNonNull(sizes, "sizes must not be null");
		IntConsumer ignoringFailures = (size) -> {
			try {
				sizes.accept(size);
			}
			catch (RuntimeException ex) {
				// an observer's failure is not the decisions'
			}
		};
		return new RedisRateLimiter(this.executor, this.keys, this.clock, this.usage.perSlot(), ignoringFailures,
				this.batches != null);
	}

	/**
	 * This limiter sending every decision in a script call of its own, as before decisions were batched: for
	 * comparisons (the benchmark). By default, decisions that arrive while a decision script call is in flight to the
	 * same Redis (on a Cluster, the same hash slot) wait for it, then leave together in one call that decides them one
	 * after the other in arrival order, each exactly as alone; a decision that finds nothing in flight leaves at once.
	 * Decisions of limits that record usage, peeks, settlements and the other scripts always go alone.
	 */
	public RedisRateLimiter withoutBatches() {
		return new RedisRateLimiter(this.executor, this.keys, this.clock, this.usage.perSlot(), this.batchSizes,
				false);
	}

	/**
	 * This limiter (same executor and keys) deciding at {@code clock}'s time instead of the server's {@code TIME}.
	 * Keys still expire on the server's clock. See {@link RateLimiter#withClock}.
	 */
	@Override
	public RedisRateLimiter withClock(InstantSource clock) {
		return new RedisRateLimiter(this.executor, this.keys, Objects.requireNonNull(clock, "clock must not be null"),
				this.usage.perSlot(), this.batchSizes, this.batches != null);
	}

	/**
	 * The announcements of this limiter's releases of full concurrency limits, received through {@code subscriber}
	 * (a connection of its own, never this limiter's executor, whose calls a subscription would stall). The caller
	 * closes it, which closes the subscriber.
	 * @param subscriber a subscription to the same Redis (or Cluster) as this limiter's executor
	 */
	public LeaseReleases releases(ChannelSubscriber subscriber) {
		return new RedisLeaseReleases(this.keys, Objects.requireNonNull(subscriber, "subscriber must not be null"));
	}

	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitRequest> limits) {
		Requests.check(clientId, limits);
		Call call = this.calls.decision(clientId, limits);
		if (this.batches != null) {
			return this.batches.decide(limits, call);
		}
		return DecisionBatches.alone(this.executor, this.batchSizes, limits, call);
	}

	@Override
	public CompletionStage<RateLimitDecision> tryAcquireAsync(String clientId, List<LimitRequest> limits) {
		Requests.check(clientId, limits);
		Call call = this.calls.decision(clientId, limits);
		if (this.batches != null) {
			return this.batches.decideAsync(limits, call);
		}
		return DecisionBatches.aloneAsync(this.executor, this.batchSizes, limits, call);
	}

	/** One call of {@link LuaScript#peek()}: the time and the limit's values of a decision but the shadow flag. */
	@Override
	public LimitDecision peek(String clientId, LimitRequest limit) {
		Requests.checkPeek(clientId);
		Call call = this.calls.peek(clientId, limit);
		List<Long> reply = this.executor.execute(LuaScript.peek(), call.keys(), call.args());
		return ScriptReplies.decisions(List.of(limit), reply).decisions().get(0);
	}

	@Override
	public CompletionStage<LimitDecision> peekAsync(String clientId, LimitRequest limit) {
		Requests.checkPeek(clientId);
		Call call = this.calls.peek(clientId, limit);
		return this.executor.executeAsync(LuaScript.peek(), call.keys(), call.args())
			.thenApply((reply) -> ScriptReplies.decisions(List.of(limit), reply).decisions().get(0));
	}

	@Override
	public RateLimitDecision settle(String clientId, List<Settlement> settlements) {
		Requests.checkSettle(clientId, settlements);
		Call call = this.calls.settlement(clientId, settlements);
		return ScriptReplies.decisions(ScriptCalls.requests(settlements),
				this.executor.execute(LuaScript.forSettlements(settlements), call.keys(), call.args()));
	}

	@Override
	public CompletionStage<RateLimitDecision> settleAsync(String clientId, List<Settlement> settlements) {
		Requests.checkSettle(clientId, settlements);
		Call call = this.calls.settlement(clientId, settlements);
		List<LimitRequest> requests = ScriptCalls.requests(settlements);
		return this.executor.executeAsync(LuaScript.forSettlements(settlements), call.keys(), call.args())
			.thenApply((reply) -> ScriptReplies.decisions(requests, reply));
	}

	@Override
	public int reset(String clientId, List<LimitDefinition> limits) {
		Requests.checkReset(clientId, limits);
		List<String> keys = limits.stream().map((limit) -> this.keys.key(clientId, limit)).distinct().toList();
		List<Long> reply = this.executor.execute(LuaScript.reset(), keys, List.of());
		if (reply.size() != 1) {
			throw new IllegalStateException("reset script replied " + reply);
		}
		AcquireLines.reset(clientId);
		return reply.get(0).intValue();
	}

	/**
	 * Deletes every client's state under this limiter's key prefix, in calls of {@code reset_all.lua} that each scan
	 * and delete one batch (1,000 keys as {@code SCAN}'s hint), so that Redis serves other clients
	 * between them; keys outside the prefix, and the starter's overrides under it, are left alone. See
	 * {@link RateLimiter#resetAll}.
	 * @throws UnsupportedOperationException on a Redis Cluster: a script reaches one node, whose keys are not all
	 */
	@Override
	public long resetAll() {
		long deleted = KeyPrefixReset.resetAll(this.executor, this.keys);
		AcquireLines.resetAll();
		return deleted;
	}

	@Override
	public List<HeldLease> leases(String clientId, LimitDefinition limit) {
		Requests.checkLeases(clientId, limit);
		String time = (this.clock != null) ? Long.toString(Requests.timeOf(this.clock)) : ScriptCalls.SERVER_TIME_ARG;
		List<Long> reply = this.executor.execute(LuaScript.leases(), List.of(this.keys.key(clientId, limit)),
				List.of(time));
		return ScriptReplies.leases(reply);
	}

	/**
	 * One page of the limit's usage, from one script call (on a Cluster, one per hash slot). The period is found by
	 * this limiter's clock, or by this JVM's when it decides at the server's {@code TIME}.
	 */
	@Override
	public Usage usage(LimitDefinition limit, Usage.Period period, int page, int size) {
		Requests.checkUsage(limit, period, page, size);
		long clockMs = this.calls.clockMs();
		return this.usage.read(this.executor, limit, period, page, size,
				(clockMs >= 0) ? clockMs : System.currentTimeMillis());
	}

}
