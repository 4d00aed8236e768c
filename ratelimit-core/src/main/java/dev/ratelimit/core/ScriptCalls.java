package dev.ratelimit.core;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ObjIntConsumer;

import org.jspecify.annotations.Nullable;

/**
 * The KEYS and ARGV of {@link RedisRateLimiter}'s decision, peek and settlement scripts (rate_limit.lua, peek.lua,
 * settle.lua): the time of the call, then the values each limit carries, the first five of which the three scripts
 * share; usage.lua's after them when a limit records usage. Checked by the caller.
 */
final class ScriptCalls {

	/** The scripts' {@code ARGV[1]} that makes them read the server's {@code TIME} (rate_limit.lua, peek.lua). */
	static final String SERVER_TIME_ARG = "-1";

	/** The values of a limit in rate_limit.lua's ARGV: five shared with peek.lua and settle.lua, and the shadow flag. */
	static final int DECISION_ARGS = 6;

	private final RedisKeys keys;

	/** The time of decisions, or {@code null} for the server's {@code TIME}. */
	private final @Nullable InstantSource clock;

	private final RedisUsage usage;

	ScriptCalls(RedisKeys keys, @Nullable InstantSource clock, RedisUsage usage) {
		this.keys = keys;
		this.clock = clock;
		this.usage = usage;
	}

	/** A script's KEYS and ARGV; ARGV's first value is the call's time ({@link #SERVER_TIME_ARG} for Redis'). */
	record Call(List<String> keys, List<String> args) {

		/** The characters of its KEYS and ARGV: what bounds a batch of calls ({@code DecisionBatches}). */
		int chars() {
			int chars = 0;
			for (String key : this.keys) {
				chars += key.length();
			}
			for (String arg : this.args) {
				chars += arg.length();
			}
			return chars;
		}

	}

	/** rate_limit.lua's KEYS and ARGV for a request, usage.lua's after them if a limit records usage. */
	Call decision(String clientId, List<LimitRequest> limits) {
		Call call = limits(clientId, limits, (args, i) -> args.add(limits.get(i).shadow() ? "1" : "0"));
		this.usage.append(clientId, limits, call.keys(), call.args());
		return call;
	}

	/** peek.lua's KEYS and ARGV: the time and the limit's five shared values. */
	Call peek(String clientId, LimitRequest limit) {
		return limits(clientId, List.of(limit), (args, i) -> {
		});
	}

	/** settle.lua's KEYS and ARGV, usage.lua's after them if a limit records usage. */
	Call settlement(String clientId, List<Settlement> settlements) {
		List<LimitRequest> requests = requests(settlements);
		Call call = limits(clientId, requests, (args, i) -> {
			args.add(Long.toString(settlements.get(i).actualCost()));
			args.add(Long.toString(settlements.get(i).reservedAtMs()));
		});
		this.usage.append(clientId, requests, call.keys(), call.args());
		return call;
	}

	/**
	 * The time, then each limit's five shared values (algorithm, limit, window, capacity or lease, cost) followed by
	 * what {@code more} adds of the script's own (given ARGV and the limit's index).
	 */
	private Call limits(String clientId, List<LimitRequest> limits, ObjIntConsumer<List<String>> more) {
		List<String> keys = new ArrayList<>(limits.size());
		List<String> args = new ArrayList<>(1 + (DECISION_ARGS + 1) * limits.size());
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
			more.accept(args, keys.size() - 1);
		}
		return new Call(keys, args);
	}

	/** This limiter's clock in ms, or -1 when it decides at the server's {@code TIME}. */
	long clockMs() {
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

	/** The reservations that {@code settlements} settle, in order: the limits of a settlement script's reply. */
	static List<LimitRequest> requests(List<Settlement> settlements) {
		return settlements.stream().map(Settlement::reservation).toList();
	}

}
