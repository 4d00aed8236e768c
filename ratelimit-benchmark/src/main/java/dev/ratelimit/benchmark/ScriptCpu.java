package dev.ratelimit.benchmark;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LuaScript;
import redis.clients.jedis.JedisPooled;

/**
 * What a decision's script costs inside Redis, apart from the network and the client: each variant's body (the real
 * script's source: {@link LuaScript#rateLimit(java.util.Collection)}, {@link LuaScript#rateLimit()}, or the lesson's
 * {@code lesson_token_bucket.lua}) wrapped in a local function that one {@code EVALSHA} calls {@code --script-calls}
 * times in a loop (2/5 of that for the heavier bodies), with the KEYS and ARGV the real caller passes
 * ({@code RedisRateLimiter}, {@link LessonScript}). Every iteration runs the whole body again, as every real call does:
 * the functions and closures it makes included. The time of one iteration is the {@code usec} of
 * {@code cmdstat_evalsha} ({@code INFO commandstats}: the server's elapsed time running the command, whole µs) over
 * the call, divided by the iterations; the table gives it above the same for a body of one command ({@code GET} of
 * an existing key), looped the same way, so that the loop and one command are left out. What a script call costs
 * once whatever it does (the call itself, KEYS and ARGV, the reply's conversion) is spread over the iterations and
 * counts next to nothing. The server's elapsed time is its CPU time unless the machine took the core away: hence
 * {@code --script-rounds} interleaved rounds (every variant once per round, after one warm-up call each), and the
 * minimum and median over them.
 *
 * <p>
 * Each {@code EVALSHA}'s reply, its last iteration's, is checked: an admitting variant must have been admitted, a
 * denying one denied, or the run fails. The commands per iteration ({@code INFO commandstats}, scripts and
 * {@code INFO} left out) show what each body ran. The rows named {@code piece:} are not decisions: a {@code GET} of a
 * token bucket's state and one piece of the token bucket's work (the last: the decision script's own source up to
 * {@code rate_limit.lua}, and {@code algorithm_of('tb')}), so that their figure above one command is that piece's
 * cost.
 */
final class ScriptCpu {

	/** What the last iteration's reply must say. */
	private enum Expect {

		ADMITTED, DENIED, ANYTHING

	}

	/**
	 * One body, looped: {@code args} is called before each {@code EVALSHA} (a time passed in is the time of that call,
	 * the same for all its iterations).
	 */
	private record Variant(String name, String body, List<String> keys, Supplier<List<String>> args, boolean heavy,
			Expect expect) {
	}

	/** One round of one variant: µs per iteration, commands per iteration. */
	private record Measurement(double micros, double commands) {
	}

	/** This part's options, read before anything runs. */
	record Settings(int rounds, int calls) {

		/** @throws IllegalArgumentException for a value out of range */
		static Settings of(Options options) {
			return new Settings(options.number("script-rounds", 41, 1, 1001),
					options.number("script-calls", 500, 5, 100_000));
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

	private ScriptCpu() {
	}

	/** Runs every variant in interleaved rounds on {@code jedis} and prints the table. */
	static void run(Settings settings, JedisPooled jedis) throws Exception {
		System.out.printf(Locale.ROOT, "%nScripts inside Redis: %d rounds, %d iterations per EVALSHA (%d for the heavier)%n",
				settings.rounds(), settings.calls(), heavyCalls(settings));
		List<Variant> variants = variants();
		Map<String, String> shas = new HashMap<>();
		for (Variant variant : variants) {
			shas.put(variant.name(), jedis.scriptLoad(looped(variant.body(), calls(variant, settings))));
		}
		jedis.flushAll();
		jedis.set(STATE_KEY, STATE);
		// the warm-up call of each variant also leaves a denying variant's key at its limit
		Map<String, List<Measurement>> results = Table.interleaved(variants, Variant::name, settings.rounds(), true,
				"script-cpu: ",
				(variant, warmUp) -> measure(variant, shas.get(variant.name()), calls(variant, settings), jedis));
		print(variants, results);
	}

	private static int heavyCalls(Settings settings) {
		return settings.calls() * 2 / 5;
	}

	private static int calls(Variant variant, Settings settings) {
		return variant.heavy() ? heavyCalls(settings) : settings.calls();
	}

	/** The body in a local function, called {@code calls} times; the script replies with the last call's reply. */
	static String looped(String body, int calls) {
		return "-- ScriptCpu: " + calls + " calls of one body in one EVALSHA\n" + "local function body()\n" + body
				+ "\nend\nlocal reply\nfor _ = 1, " + calls + " do\n  reply = body()\nend\nreturn reply\n";
	}

	private static List<Variant> variants() {
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
		variants.add(new Variant("token bucket, admitting, server's clock, all algorithms' script",
				LuaScript.rateLimit().source(), List.of(key("tball", "tb", true)), limits(true, limit("tb", true)),
				false, Expect.ADMITTED));
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

	/** A key as an application has it ({@code RedisKeys}): prefix, a 12-character client tag, limit, code, window. */
	private static String key(String client, String code, boolean admitting) {
		String window = !admitting ? "1h" : code.equals("sl") ? "1ms" : "1s";
		return "rl:{" + (client + "000000000000").substring(0, 12) + "}:api:" + code + ":" + window;
	}

	private static String now() {
		return Long.toString(System.currentTimeMillis());
	}

	private static Measurement measure(Variant variant, String sha, int calls, JedisPooled jedis) {
		Map<String, long[]> before = commandStats(jedis);
		Object reply = jedis.evalsha(sha, variant.keys(), variant.args().get());
		Map<String, long[]> after = commandStats(jedis);
		check(variant, reply);
		long usec = after.get("evalsha")[1] - before.getOrDefault("evalsha", new long[2])[1];
		long commands = 0;
		for (Map.Entry<String, long[]> entry : after.entrySet()) {
			if (!List.of("evalsha", "info").contains(entry.getKey())) {
				commands += entry.getValue()[0] - before.getOrDefault(entry.getKey(), new long[2])[0];
			}
		}
		return new Measurement((double) usec / calls, (double) commands / calls);
	}

	/** @throws IllegalStateException if the last iteration's reply is not what the variant's name says */
	private static void check(Variant variant, Object reply) {
		if (variant.expect() == Expect.ANYTHING) {
			return;
		}
		long wanted = (variant.expect() == Expect.ADMITTED) ? 1 : 0;
		boolean right;
		if (reply instanceof Long verdict) {
			right = verdict == wanted;
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
			throw new IllegalStateException("script-cpu: '" + variant.name() + "' expected "
					+ variant.expect().name().toLowerCase(Locale.ROOT) + ", but its last call replied " + reply);
		}
	}

	/** {@code INFO commandstats}: calls and usec by command name. */
	private static Map<String, long[]> commandStats(JedisPooled jedis) {
		Map<String, long[]> stats = new HashMap<>();
		for (String line : jedis.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				stats.put(line.substring(8, line.indexOf(':')),
						new long[] { field(line, "calls="), field(line, "usec=") });
			}
		}
		return stats;
	}

	private static long field(String line, String name) {
		int at = line.indexOf(name) + name.length();
		int end = line.indexOf(',', at);
		return Long.parseLong(line.substring(at, (end < 0) ? line.length() : end));
	}

	private static double min(List<Measurement> rounds) {
		return rounds.stream().mapToDouble(Measurement::micros).min().orElseThrow();
	}

	@SuppressWarnings("NullAway") // every variant was measured
	private static void print(List<Variant> variants, Map<String, List<Measurement>> results) {
		List<Measurement> unit = results.get(variants.get(0).name());
		double unitMin = min(unit);
		double unitMedian = Table.median(unit, Measurement::micros);
		List<Measurement> lesson = results.get(variants.get(1).name());
		double lessonMin = min(lesson) - unitMin;
		double lessonMedian = Table.median(lesson, Measurement::micros) - unitMedian;
		System.out.println();
		System.out.printf(Locale.ROOT, "| %-68s | %8s | %10s | %12s | %9s | %12s |%n", "variant",
				"commands", "µs min", "µs median", "x lesson", "x lesson med");
		System.out.printf(Locale.ROOT, "| %-68s | %8s | %10s | %12s | %9s | %12s |%n", "---", "---:", "---:", "---:",
				"---:", "---:");
		for (Variant variant : variants.subList(1, variants.size())) {
			List<Measurement> measured = results.get(variant.name());
			double above = min(measured) - unitMin;
			double aboveMedian = Table.median(measured, Measurement::micros) - unitMedian;
			System.out.printf(Locale.ROOT, "| %-68s | %8.2f | %10.2f | %12.2f | %9.2f | %12.2f |%n", variant.name(),
					Table.median(measured, Measurement::commands), above, aboveMedian, above / lessonMin,
					aboveMedian / lessonMedian);
		}
		System.out.printf(Locale.ROOT,
				"µs per call above one command's body (the unit: %.2f µs min, %.2f median per iteration, %.2f commands)%n",
				unitMin, unitMedian, Table.median(unit, Measurement::commands));
	}

}
