package dev.ratelimit.core;

import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * The {@link RateLimiter} on Redis: one call of {@link LuaScript#rateLimit(java.util.Collection)} (the script of the
 * limits' algorithms) per decision, whatever the number of limits, through a {@link ScriptExecutor}. Keys follow
 * {@code <prefix>{<client>}:<name>:<algorithm>:<window>} (see {@code RedisKeys}), so they are Redis Cluster safe. Decisions are taken at the Redis server's time
 * ({@code TIME}, read by the script), or at the time of the clock given to {@link #withClock}.
 */
public final class RedisRateLimiter implements RateLimiter {

	/** Key prefix used when none is given. */
	public static final String DEFAULT_KEY_PREFIX = "rl:";

	/** The scripts' {@code ARGV[1]} that makes them read the server's {@code TIME} (rate_limit.lua, peek.lua). */
	private static final String SERVER_TIME_ARG = "-1";

	/** The scripts' retry-after of a cost that can never fit (rate_limit.lua, peek.lua). */
	private static final long SCRIPT_NEVER = -1;

	/**
	 * Integers per limit in the scripts' reply: allowed, remaining, retry, reset, more, decided at (see
	 * rate_limit.lua; peek.lua and settle.lua reply alike).
	 */
	private static final int REPLY_PER_LIMIT = 6;

	/** The {@code COUNT} hint of each {@code SCAN} of {@link #resetAll}. */
	private static final int RESET_BATCH = 1000;

	private final ScriptExecutor executor;

	private final RedisKeys keys;

	/** The time of decisions, or {@code null} for the server's {@code TIME}. */
	private final @Nullable InstantSource clock;

	private final RedisUsage usage;

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
				new RedisKeys(Objects.requireNonNull(keyPrefix, "keyPrefix must not be null")), null, false);
	}

	private RedisRateLimiter(ScriptExecutor executor, RedisKeys keys, @Nullable InstantSource clock, boolean cluster) {
		this.executor = executor;
		this.keys = keys;
		this.clock = clock;
		this.usage = new RedisUsage(keys, cluster);
	}

	/**
	 * This limiter (same executor, keys and clock) for a Redis Cluster: limits that record usage keep it per hash
	 * slot, beside their clients' keys, since a script touches the keys of one slot only; a read of usage visits
	 * every slot (docs/ALGORITHMS.md, "Usage"). Without it, a decision of a limit that records usage fails on a
	 * Cluster ({@code CROSSSLOT}). Decisions of limits without usage are the same either way.
	 */
	public RedisRateLimiter onCluster() {
		return new RedisRateLimiter(this.executor, this.keys, this.clock, true);
	}

	/**
	 * This limiter (same executor and keys) deciding at {@code clock}'s time instead of the server's {@code TIME}.
	 * Keys still expire on the server's clock. See {@link RateLimiter#withClock}.
	 */
	@Override
	public RedisRateLimiter withClock(InstantSource clock) {
		return new RedisRateLimiter(this.executor, this.keys, Objects.requireNonNull(clock, "clock must not be null"),
				this.usage.perSlot());
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
		Call call = withUsage(clientId, limits, call(clientId, limits));
		return decisions(limits, this.executor.execute(LuaScript.forLimits(limits), call.keys(), call.args()));
	}

	@Override
	public CompletionStage<RateLimitDecision> tryAcquireAsync(String clientId, List<LimitRequest> limits) {
		Requests.check(clientId, limits);
		Call call = withUsage(clientId, limits, call(clientId, limits));
		return this.executor.executeAsync(LuaScript.forLimits(limits), call.keys(), call.args())
			.thenApply((reply) -> decisions(limits, reply));
	}

	/** One call of {@link LuaScript#peek()}: the limit's six values of {@link #call} without the shadow flag. */
	@Override
	public LimitDecision peek(String clientId, LimitRequest limit) {
		Requests.checkPeek(clientId);
		Call call = call(clientId, List.of(limit));
		List<Long> reply = this.executor.execute(LuaScript.peek(), call.keys(), call.args().subList(0, 6));
		return decisions(List.of(limit), reply).decisions().get(0);
	}

	@Override
	public CompletionStage<LimitDecision> peekAsync(String clientId, LimitRequest limit) {
		Requests.checkPeek(clientId);
		Call call = call(clientId, List.of(limit));
		return this.executor.executeAsync(LuaScript.peek(), call.keys(), call.args().subList(0, 6))
			.thenApply((reply) -> decisions(List.of(limit), reply).decisions().get(0));
	}

	@Override
	public RateLimitDecision settle(String clientId, List<Settlement> settlements) {
		Call call = settleCall(clientId, settlements);
		return decisions(requests(settlements),
				this.executor.execute(LuaScript.forSettlements(settlements), call.keys(), call.args()));
	}

	@Override
	public CompletionStage<RateLimitDecision> settleAsync(String clientId, List<Settlement> settlements) {
		Call call = settleCall(clientId, settlements);
		List<LimitRequest> requests = requests(settlements);
		return this.executor.executeAsync(LuaScript.forSettlements(settlements), call.keys(), call.args())
			.thenApply((reply) -> decisions(requests, reply));
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
		String pattern = this.keys.statePattern();
		long cursor = 0;
		long deleted = 0;
		do {
			List<Long> reply;
			try {
				reply = this.executor.execute(LuaScript.resetAll(), List.of(),
						List.of(Long.toString(cursor), pattern, Integer.toString(RESET_BATCH)));
			}
			catch (RuntimeException ex) {
				if (String.valueOf(ex.getMessage()).contains("not supported on a Redis Cluster")) {
					throw new UnsupportedOperationException("Resetting every client's state is not supported on a "
							+ "Redis Cluster: reset clients one by one (RateLimiter.reset)", ex);
				}
				throw ex;
			}
			if (reply.size() != 2) {
				throw new IllegalStateException("reset_all script replied " + reply);
			}
			cursor = reply.get(0);
			deleted += reply.get(1);
		}
		while (cursor != 0);
		AcquireLines.resetAll();
		return deleted;
	}

	@Override
	public List<HeldLease> leases(String clientId, LimitDefinition limit) {
		Requests.checkLeases(clientId, limit);
		String time = (this.clock != null) ? Long.toString(Requests.timeOf(this.clock)) : SERVER_TIME_ARG;
		List<Long> reply = this.executor.execute(LuaScript.leases(), List.of(this.keys.key(clientId, limit)),
				List.of(time));
		List<HeldLease> leases = new ArrayList<>();
		int at = 0;
		while (at < reply.size()) {
			int length = reply.get(at + 1).intValue();
			leases.add(new HeldLease(text(reply, at + 2, length), reply.get(at)));
			at += 2 + length;
		}
		return leases;
	}

	/**
	 * One page of the limit's usage, from one script call (on a Cluster, one per hash slot). The period is found by
	 * this limiter's clock, or by this JVM's when it decides at the server's {@code TIME}.
	 */
	@Override
	public Usage usage(LimitDefinition limit, Usage.Period period, int page, int size) {
		Requests.checkUsage(limit, period, page, size);
		long clockMs = clockMs();
		return this.usage.read(this.executor, limit, period, page, size,
				(clockMs >= 0) ? clockMs : System.currentTimeMillis());
	}

	/**
	 * The text of {@code length} bytes of a script's reply from {@code from}, one byte an integer (leases.lua,
	 * usage_page.lua): a script's reply holds integers as the executors read it.
	 */
	static String text(List<Long> reply, int from, int length) {
		byte[] text = new byte[length];
		for (int i = 0; i < length; i++) {
			text[i] = reply.get(from + i).byteValue();
		}
		return new String(text, StandardCharsets.UTF_8);
	}

	/** The script's KEYS and ARGV (see rate_limit.lua). */
	private record Call(List<String> keys, List<String> args) {
	}

	/** {@code call} with the KEYS and ARGV of the limits that record usage (usage.lua), if any. */
	private Call withUsage(String clientId, List<LimitRequest> limits, Call call) {
		this.usage.append(clientId, limits, call.keys(), call.args());
		return call;
	}

	/** Checked by the caller. */
	private Call call(String clientId, List<LimitRequest> limits) {
		List<String> keys = new ArrayList<>(limits.size());
		List<String> args = new ArrayList<>(1 + 6 * limits.size());
		long clockMs = clockMs();
		args.add((clockMs >= 0) ? Long.toString(clockMs) : SERVER_TIME_ARG);
		for (LimitRequest request : limits) {
			LimitDefinition limit = request.definition();
			keys.add(this.keys.key(clientId, limit));
			args.add(limit.scriptCode());
			args.add(Long.toString(limit.limit()));
			args.add(Long.toString(limit.windowMs()));
			args.add(capacityOrLease(request, clockMs));
			args.add(Long.toString(request.cost()));
			args.add(request.shadow() ? "1" : "0");
		}
		return new Call(keys, args);
	}

	/** The script's KEYS and ARGV (see settle.lua). */
	private Call settleCall(String clientId, List<Settlement> settlements) {
		Requests.checkSettle(clientId, settlements);
		List<String> keys = new ArrayList<>(settlements.size());
		List<String> args = new ArrayList<>(1 + 7 * settlements.size());
		long clockMs = clockMs();
		args.add((clockMs >= 0) ? Long.toString(clockMs) : SERVER_TIME_ARG);
		for (Settlement settlement : settlements) {
			LimitDefinition limit = settlement.reservation().definition();
			keys.add(this.keys.key(clientId, limit));
			args.add(limit.scriptCode());
			args.add(Long.toString(limit.limit()));
			args.add(Long.toString(limit.windowMs()));
			args.add(capacityOrLease(settlement.reservation(), clockMs));
			args.add(Long.toString(settlement.reservation().cost()));
			args.add(Long.toString(settlement.actualCost()));
			args.add(Long.toString(settlement.reservedAtMs()));
		}
		return withUsage(clientId, requests(settlements), new Call(keys, args));
	}

	/** This limiter's clock in ms, or -1 when it decides at the server's {@code TIME}. */
	private long clockMs() {
		return (this.clock != null) ? Requests.timeOf(this.clock) : -1;
	}

	/**
	 * A limit's fourth value in the scripts: the capacity of a rate limit, the lease id of a concurrency limit (empty
	 * when a peek asks about no lease in particular), and for a calendar period the starts of four periods around
	 * the time {@code clockMs} (this JVM's clock when it is -1), "b0 b1 b2 b3" in ms: Lua knows no time zones, so the
	 * bounds come from here and the script picks the period that holds the time it decides at (calendar_window.lua).
	 */
	private static String capacityOrLease(LimitRequest request, long clockMs) {
		LimitDefinition limit = request.definition();
		CalendarPeriod calendar = limit.calendar();
		if (calendar != null) {
			long[] b = calendar.bounds((clockMs >= 0) ? clockMs : System.currentTimeMillis());
			return b[0] + " " + b[1] + " " + b[2] + " " + b[3];
		}
		if (limit.algorithm().rate()) {
			return Long.toString(limit.capacity());
		}
		return (request.lease() != null) ? request.lease() : "";
	}

	private static List<LimitRequest> requests(List<Settlement> settlements) {
		return settlements.stream().map(Settlement::reservation).toList();
	}

	private static RateLimitDecision decisions(List<LimitRequest> limits, List<Long> reply) {
		if (reply.size() != REPLY_PER_LIMIT * limits.size()) {
			throw new IllegalStateException("rate-limit script replied " + reply + " for " + limits.size() + " limits");
		}
		List<LimitDecision> decisions = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			int at = REPLY_PER_LIMIT * i;
			long retry = reply.get(at + 2);
			decisions.add(new LimitDecision(limits.get(i), reply.get(at) == 1,
					(retry == SCRIPT_NEVER) ? OptionalLong.empty() : OptionalLong.of(retry),
					new LimitDecision.Allowance(reply.get(at + 1), reply.get(at + 3), reply.get(at + 4)),
					reply.get(at + 5)));
		}
		return new RateLimitDecision(decisions);
	}

}
