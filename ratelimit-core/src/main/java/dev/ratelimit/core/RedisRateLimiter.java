package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * The {@link RateLimiter} on Redis: one call of {@link LuaScript#rateLimit()} per decision, whatever the number of
 * limits, through a {@link ScriptExecutor}. Keys follow {@code <prefix>{<client>}:<name>:<algorithm>:<window>}
 * (see {@code RedisKeys}), so they are Redis Cluster safe.
 */
public final class RedisRateLimiter implements RateLimiter {

	/** Key prefix used when none is given. */
	public static final String DEFAULT_KEY_PREFIX = "rl:";

	private static final long SERVER_TIME = -1;

	/** Integers per limit in the script's reply: allowed, remaining, retry, reset, more (see rate_limit.lua). */
	private static final int REPLY_PER_LIMIT = 5;

	private final ScriptExecutor executor;

	private final RedisKeys keys;

	/** A limiter on {@code executor} with keys under {@value #DEFAULT_KEY_PREFIX}. */
	public RedisRateLimiter(ScriptExecutor executor) {
		this(executor, DEFAULT_KEY_PREFIX);
	}

	/**
	 * A limiter on {@code executor} with keys under {@code keyPrefix}.
	 * @throws IllegalArgumentException if the prefix contains a brace
	 */
	public RedisRateLimiter(ScriptExecutor executor, String keyPrefix) {
		this.executor = Objects.requireNonNull(executor, "executor must not be null");
		this.keys = new RedisKeys(Objects.requireNonNull(keyPrefix, "keyPrefix must not be null"));
	}

	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitDefinition> limits) {
		return decide(clientId, limits, SERVER_TIME);
	}

	@Override
	public CompletionStage<RateLimitDecision> tryAcquireAsync(String clientId, List<LimitDefinition> limits) {
		Call call = call(clientId, limits, SERVER_TIME);
		return this.executor.executeAsync(LuaScript.rateLimit(), call.keys(), call.args())
			.thenApply((reply) -> decisions(limits, reply));
	}

	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitDefinition> limits, long nowMs) {
		Requests.checkTime(nowMs);
		return decide(clientId, limits, nowMs);
	}

	@Override
	public LimitDecision peek(String clientId, LimitDefinition limit) {
		return look(clientId, limit, SERVER_TIME);
	}

	@Override
	public CompletionStage<LimitDecision> peekAsync(String clientId, LimitDefinition limit) {
		Call call = call(clientId, List.of(limit), SERVER_TIME);
		return this.executor.executeAsync(LuaScript.peek(), call.keys(), call.args().subList(0, 6))
			.thenApply((reply) -> decisions(List.of(limit), reply).decisions().get(0));
	}

	@Override
	public LimitDecision peek(String clientId, LimitDefinition limit, long nowMs) {
		Requests.checkTime(nowMs);
		return look(clientId, limit, nowMs);
	}

	/** One call of {@link LuaScript#peek()}: the limit's six values of {@link #call} without the shadow flag. */
	private LimitDecision look(String clientId, LimitDefinition limit, long nowMs) {
		Call call = call(clientId, List.of(limit), nowMs);
		List<Long> reply = this.executor.execute(LuaScript.peek(), call.keys(), call.args().subList(0, 6));
		return decisions(List.of(limit), reply).decisions().get(0);
	}

	@Override
	public int reset(String clientId, List<LimitDefinition> limits) {
		Requests.checkReset(clientId, limits);
		List<String> keys = limits.stream().map((limit) -> this.keys.key(clientId, limit)).distinct().toList();
		List<Long> reply = this.executor.execute(LuaScript.reset(), keys, List.of());
		if (reply.size() != 1) {
			throw new IllegalStateException("reset script replied " + reply);
		}
		return reply.get(0).intValue();
	}

	private RateLimitDecision decide(String clientId, List<LimitDefinition> limits, long nowMs) {
		Call call = call(clientId, limits, nowMs);
		return decisions(limits, this.executor.execute(LuaScript.rateLimit(), call.keys(), call.args()));
	}

	/** The script's KEYS and ARGV (see rate_limit.lua). */
	private record Call(List<String> keys, List<String> args) {
	}

	private Call call(String clientId, List<LimitDefinition> limits, long nowMs) {
		Requests.check(clientId, limits);
		List<String> keys = new ArrayList<>(limits.size());
		List<String> args = new ArrayList<>(1 + 6 * limits.size());
		args.add(Long.toString(nowMs));
		for (LimitDefinition limit : limits) {
			keys.add(this.keys.key(clientId, limit));
			args.add(limit.algorithm().code());
			args.add(Long.toString(limit.limit()));
			args.add(Long.toString(limit.windowMs()));
			args.add(Long.toString(limit.capacity()));
			args.add(Long.toString(limit.cost()));
			args.add(limit.shadow() ? "1" : "0");
		}
		return new Call(keys, args);
	}

	private static RateLimitDecision decisions(List<LimitDefinition> limits, List<Long> reply) {
		if (reply.size() != REPLY_PER_LIMIT * limits.size()) {
			throw new IllegalStateException("rate-limit script replied " + reply + " for " + limits.size() + " limits");
		}
		List<LimitDecision> decisions = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			int at = REPLY_PER_LIMIT * i;
			decisions.add(new LimitDecision(limits.get(i), reply.get(at) == 1, reply.get(at + 1), reply.get(at + 2),
					reply.get(at + 3), reply.get(at + 4)));
		}
		return new RateLimitDecision(decisions);
	}

}
