package dev.ratelimit.benchmark;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LuaScript;
import redis.clients.jedis.JedisPooled;

/**
 * The bodies {@link ScriptCpu} measures, each with the KEYS and ARGV its real caller passes ({@code RedisRateLimiter},
 * {@link LessonScript}) and what its last reply must say: the one-command unit, the lesson's script, every algorithm's
 * decision script admitting and denying (the token bucket also with the time passed in, with all the algorithms'
 * script, with a second limit, and recording usage), and the rows named {@code piece:}, which are not decisions: a
 * {@code GET} of a token bucket's state and one piece of the token bucket's work (the last: the decision script's own
 * source up to {@code rate_limit.lua}, and {@code algorithm_of('tb')}), so that their figure above one command is
 * that piece's cost.
 */
final class ScriptVariants {

	/** What the last iteration's reply must say. */
	enum Expect {

		ADMITTED, DENIED, ANYTHING

	}

	/**
	 * One body, looped: {@code args} is called before each {@code EVALSHA} (a time passed in is the time of that call,
	 * the same for all its iterations).
	 */
	record Variant(String name, String body, List<String> keys, Supplier<List<String>> args, boolean heavy,
			Expect expect, int decisions) {

		/** A variant of one decision per iteration. */
		Variant(String name, String body, List<String> keys, Supplier<List<String>> args, boolean heavy,
				Expect expect) {
			this(name, body, keys, args, heavy, expect, 1);
		}

		/** @throws IllegalStateException if the last iteration's reply is not what the variant's name says */
		void check(Object reply) {
			if (this.expect == Expect.ANYTHING) {
				return;
			}
			long wanted = (this.expect == Expect.ADMITTED) ? 1 : 0;
			boolean right;
			if (reply instanceof Long verdict) {
				right = verdict == wanted;
			}
			else if (this.decisions > 1 && reply instanceof List<?> fields) {
				// batch.lua: per member 0 then its six values (one limit each here), the second its verdict
				right = fields.size() == 7 * this.decisions;
				for (int i = 0; right && i < fields.size(); i += 7) {
					right = Long.valueOf(0).equals(fields.get(i)) && Long.valueOf(wanted).equals(fields.get(i + 1));
				}
			}
			else if (reply instanceof List<?> fields && !fields.isEmpty() && fields.size() % 6 == 0) {
				// rate_limit.lua: six values per limit, the first its verdict
				right = true;
				for (int i = 0; i < fields.size(); i += 6) {
					right &= Long.valueOf(wanted).equals(fields.get(i));
				}
			}
			else {
				right = false;
			}
			if (!right) {
				throw new IllegalStateException("script-cpu: '" + this.name + "' expected "
						+ this.expect.name().toLowerCase(Locale.ROOT) + ", but its last call replied " + reply);
			}
		}

	}

	/** rate_limit.lua's algorithm codes ({@code Algorithm.code()}, package-private in the core). */
	private static final Map<Algorithm, String> CODES = Map.of(Algorithm.FIXED_WINDOW, "fw", Algorithm.SLIDING_LOG,
			"sl", Algorithm.SLIDING_WINDOW_COUNTER, "swc", Algorithm.TOKEN_BUCKET, "tb");

	/**
	 * A token bucket's state as an admitting call leaves it (scaled tokens, time in ms), under a key of its own: what
	 * the one-command unit and the pieces read.
	 */
	private static final String STATE = "999999999000 1796000000000";

	private static final String STATE_KEY = "rl:{state0000000}:api:tb:1s";

	private ScriptVariants() {
	}

	/** The token bucket's state the unit and the pieces read, written before the rounds. */
	static void storeState(JedisPooled jedis) {
		jedis.set(STATE_KEY, STATE);
		// the cap of the "at the cap" variant is 1: another client holds it
		String atCap = usageKeys(STATE_KEY, "usage-at-cap").get(2);
		jedis.zadd(atCap, 1, "key:other");
		jedis.pexpire(atCap, 3_600_000);
	}

	/** Every variant, in the table's order: the one-command unit first, then the lesson's admitting script. */
	static List<Variant> all() {
		List<Variant> variants = new ArrayList<>();
		variants.add(new Variant("one command (GET): the unit subtracted", "return redis.call('GET', KEYS[1])",
				List.of(STATE_KEY), List::of, false, Expect.ANYTHING));
		String lesson = LessonScript.source();
		// as LessonScript calls it: capacity, rate per second, now in ms, cost
		variants.add(new Variant("lesson's token bucket, admitting", lesson, List.of("rl:lesson:admit"),
				() -> List.of("1000000000", "1000000000", now(), "1"), false, Expect.ADMITTED));
		variants.add(new Variant("lesson's token bucket, denying", lesson, List.of("rl:lesson:deny"),
				() -> List.of("1", "0.000277777", now(), "1"), false, Expect.DENIED));
		String bucket = LuaScript.rateLimit(EnumSet.of(Algorithm.TOKEN_BUCKET)).source();
		for (boolean admitting : new boolean[] { true, false }) {
			for (boolean serverClock : new boolean[] { true, false }) {
				variants.add(new Variant("token bucket, " + (admitting ? "admitting" : "denying")
						+ (serverClock ? ", server's clock" : ", time passed in"), bucket,
						List.of(key("tb" + (admitting ? "a" : "d") + (serverClock ? "s" : "t"), "tb", admitting)),
						limits(serverClock, limit("tb", admitting)), false,
						admitting ? Expect.ADMITTED : Expect.DENIED));
			}
		}
		// batch.lua (issue 51): 16 decisions of one limit each in one call, per decision (the row's µs over 16), of
		// 16 clients and of one hot key
		String batch = LuaScript.batch(EnumSet.of(Algorithm.TOKEN_BUCKET)).source();
		for (boolean hot : new boolean[] { false, true }) {
			List<String> keys = new ArrayList<>();
			for (int m = 0; m < BATCH; m++) {
				keys.add(key(hot ? "tbbh" : "tbb" + m, "tb", true));
			}
			variants.add(new Variant("token bucket, admitting, server's clock, batch of " + BATCH + (hot ? ", one key" : "")
					+ ", per decision", batch, keys, batch(limit("tb", true)), true, Expect.ADMITTED, BATCH));
		}
		variants.add(new Variant("token bucket, admitting, server's clock, all algorithms' script",
				LuaScript.rateLimit().source(), List.of(key("tball", "tb", true)), limits(true, limit("tb", true)),
				false, Expect.ADMITTED));
		// usage recorded (usage.lua): a client already in the month's set (one ZINCRBY), and one at the cap, the worst
		// case, which takes the new client's path on every call (ZINCRBY, ZCARD, ZREM, ZINCRBY, PEXPIRE)
		String recording = LuaScript.rateLimit(EnumSet.of(Algorithm.TOKEN_BUCKET), true).source();
		for (String client : new String[] { "known", "at-cap" }) {
			variants.add(new Variant("token bucket, admitting, server's clock, usage, " + (client.equals("known")
					? "client recorded" : "client at the cap"), recording,
					usageKeys(key("tbu" + client, "tb", true), "usage-" + client), usage(limits(true, limit("tb", true)),
							"key:" + client, client.equals("known") ? 100_000 : 1),
					false, Expect.ADMITTED));
		}
		variants.add(new Variant("token bucket, denying, server's clock, usage", recording,
				usageKeys(key("tbud", "tb", false), "usage-denied"), usage(limits(true, limit("tb", false)), "key:denied",
						100_000),
				false, Expect.DENIED));
		variants.add(new Variant("token bucket + sliding window counter, admitting, server's clock",
				LuaScript.rateLimit(EnumSet.of(Algorithm.TOKEN_BUCKET, Algorithm.SLIDING_WINDOW_COUNTER)).source(),
				List.of(key("two", "tb", true), key("two", "swc", true)),
				limits(true, limit("tb", true), limit("swc", true)), true, Expect.ADMITTED));
		for (Algorithm algorithm : List.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_COUNTER,
				Algorithm.SLIDING_LOG)) {
			String code = CODES.get(algorithm);
			for (boolean admitting : new boolean[] { true, false }) {
				variants.add(new Variant(algorithm.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ", "
						+ (admitting ? "admitting" : "denying") + ", server's clock",
						LuaScript.rateLimit(EnumSet.of(algorithm)).source(),
						List.of(key(code + (admitting ? "a" : "d"), code, admitting)),
						limits(true, limit(code, admitting)), algorithm == Algorithm.SLIDING_LOG,
						admitting ? Expect.ADMITTED : Expect.DENIED));
			}
		}
		// a GET of the token bucket's state (as load() does), then one piece of the rest of its work
		List<String> state = List.of(STATE_KEY);
		variants.add(new Variant("piece: TIME, converted to ms (as common.lua)", """
				redis.call('GET', KEYS[1])
				local time = redis.call('TIME')
				return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)""", state, List::of, false,
				Expect.ANYTHING));
		variants.add(new Variant("piece: the state parsed (as load)", """
				local state = redis.call('GET', KEYS[1])
				local t, ts = string.match(state, '^(-?%d+) (%d+)$')
				t, ts = tonumber(t), tonumber(ts)
				return ts""", state, List::of, false, Expect.ANYTHING));
		variants.add(new Variant("piece: the state formatted, SET ... PX (as commit)", """
				redis.call('GET', KEYS[1])
				redis.call('SET', KEYS[1], string.format('%.0f %.0f', 999999999000, 1796000000000), 'PX',
				  string.format('%.0f', 3600000))""", state, List::of, false, Expect.ANYTHING));
		// the time passed in (common.lua reads ARGV[1]): this piece leaves TIME out
		variants.add(new Variant("piece: the token bucket's functions made, no decision", functionsOnly(bucket)
				+ "\nlocal decide, commit = algorithm_of('tb')\nreturn redis.call('GET', KEYS[1])", state,
				() -> List.of(now()), false, Expect.ANYTHING));
		return variants;
	}

	/** The decision script without {@code rate_limit.lua}: what defines its functions, and nothing that runs them. */
	private static String functionsOnly(String script) {
		int decision = script.indexOf("-- rate_limit.lua:");
		if (decision < 0) {
			throw new IllegalStateException("script-cpu: rate_limit.lua's first line not found in the decision script");
		}
		return script.substring(0, decision);
	}

	/**
	 * One limit's five values after its code, as {@code RedisRateLimiter} sends them (limit, window in ms, capacity,
	 * cost, shadow). Admitting: a limit no run reaches (the sliding log's largest, 10,000 per 1 ms, as in
	 * {@link JavaApiBenchmark}); denying: 1 per hour.
	 */
	private static List<String> limit(String code, boolean admitting) {
		if (!admitting) {
			return List.of(code, "1", "3600000", "1", "1", "0");
		}
		if (code.equals("sl")) {
			return List.of(code, "10000", "1", "10000", "1", "0");
		}
		return List.of(code, "1000000000", "1000", "1000000000", "1", "0");
	}

	/** The decisions of the batch variants. */
	private static final int BATCH = 16;

	/** batch.lua's ARGV for {@link #BATCH} members of one limit each, all at the server's {@code TIME}. */
	private static Supplier<List<String>> batch(List<String> limit) {
		return () -> {
			List<String> args = new ArrayList<>(List.of("-1", Integer.toString(BATCH)));
			for (int m = 0; m < BATCH; m++) {
				args.add("1");
				args.add("-1");
				args.addAll(limit);
			}
			return args;
		};
	}

	/** rate_limit.lua's ARGV: the time ({@code -1}: the server's {@code TIME}), then each limit's six values. */
	@SafeVarargs
	private static Supplier<List<String>> limits(boolean serverClock, List<String>... limits) {
		return () -> {
			List<String> args = new ArrayList<>();
			args.add(serverClock ? "-1" : now());
			for (List<String> limit : limits) {
				args.addAll(limit);
			}
			return args;
		};
	}

	/**
	 * {@code stateKey} and the three usage sets of its limit ({@code RedisKeys.usageKey}: previous, current and next
	 * month), under a name of their own.
	 */
	private static List<String> usageKeys(String stateKey, String name) {
		long[] b = months();
		List<String> keys = new ArrayList<>(List.of(stateKey));
		for (int p = 0; p < 3; p++) {
			keys.add("rl:usage:" + name + ":" + b[p] + "-" + b[p + 1]);
		}
		return keys;
	}

	/**
	 * {@code args} with usage.lua's values after them, as {@code RedisRateLimiter} sends them for one limit that
	 * records usage per month in UTC: the client id, the limit's index, five months' starts (hexadecimal), the cap,
	 * and 1.
	 */
	private static Supplier<List<String>> usage(Supplier<List<String>> args, String client, int cap) {
		return () -> {
			List<String> all = new ArrayList<>(args.get());
			all.add(client);
			all.add("1");
			for (long start : months()) {
				all.add(Long.toHexString(start));
			}
			all.add(Integer.toString(cap));
			all.add("1");
			return all;
		};
	}

	/** The starts of five months in UTC, from the one before this one. */
	private static long[] months() {
		java.time.YearMonth month = java.time.YearMonth.now(java.time.ZoneOffset.UTC).minusMonths(1);
		long[] starts = new long[5];
		for (int i = 0; i < 5; i++) {
			starts[i] = month.plusMonths(i).atDay(1).atStartOfDay(java.time.ZoneOffset.UTC).toInstant().toEpochMilli();
		}
		return starts;
	}

	/** A key as an application has it ({@code RedisKeys}): prefix, a 12-character client tag, limit, code, window. */
	private static String key(String client, String code, boolean admitting) {
		String window = !admitting ? "1h" : code.equals("sl") ? "1ms" : "1s";
		return "rl:{" + (client + "000000000000").substring(0, 12) + "}:api:" + code + ":" + window;
	}

	private static String now() {
		return Long.toString(System.currentTimeMillis());
	}

}
