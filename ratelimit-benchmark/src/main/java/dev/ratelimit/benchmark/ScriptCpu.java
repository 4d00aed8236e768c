package dev.ratelimit.benchmark;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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
 * {@code INFO} left out) show what each body ran. The variants, with their KEYS, ARGV and expected replies, are
 * {@link ScriptVariants}'.
 */
final class ScriptCpu {

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

	private ScriptCpu() {
	}

	/** Runs every variant in interleaved rounds on {@code jedis} and prints the table. */
	static void run(Settings settings, JedisPooled jedis) throws Exception {
		System.out.printf(Locale.ROOT, "%nScripts inside Redis: %d rounds, %d iterations per EVALSHA (%d for the heavier)%n",
				settings.rounds(), settings.calls(), heavyCalls(settings));
		List<ScriptVariants.Variant> variants = ScriptVariants.all();
		Map<String, String> shas = new HashMap<>();
		for (ScriptVariants.Variant variant : variants) {
			shas.put(variant.name(), jedis.scriptLoad(looped(variant.body(), calls(variant, settings))));
		}
		jedis.flushAll();
		ScriptVariants.storeState(jedis);
		// the warm-up call of each variant also leaves a denying variant's key at its limit
		Map<String, List<Measurement>> results = Table.interleaved(variants, ScriptVariants.Variant::name, settings.rounds(), true,
				"script-cpu: ",
				(variant, warmUp) -> measure(variant, shas.get(variant.name()), calls(variant, settings), jedis));
		print(variants, results);
	}

	private static int heavyCalls(Settings settings) {
		return settings.calls() * 2 / 5;
	}

	private static int calls(ScriptVariants.Variant variant, Settings settings) {
		return variant.heavy() ? heavyCalls(settings) : settings.calls();
	}

	/** The body in a local function, called {@code calls} times; the script replies with the last call's reply. */
	static String looped(String body, int calls) {
		return "-- ScriptCpu: " + calls + " calls of one body in one EVALSHA\n" + "local function body()\n" + body
				+ "\nend\nlocal reply\nfor _ = 1, " + calls + " do\n  reply = body()\nend\nreturn reply\n";
	}

	private static Measurement measure(ScriptVariants.Variant variant, String sha, int calls, JedisPooled jedis) {
		Map<String, long[]> before = commandStats(jedis);
		Object reply = jedis.evalsha(sha, variant.keys(), variant.args().get());
		Map<String, long[]> after = commandStats(jedis);
		variant.check(reply);
		long usec = after.get("evalsha")[1] - before.getOrDefault("evalsha", new long[2])[1];
		long commands = 0;
		for (Map.Entry<String, long[]> entry : after.entrySet()) {
			if (!List.of("evalsha", "info").contains(entry.getKey())) {
				commands += entry.getValue()[0] - before.getOrDefault(entry.getKey(), new long[2])[0];
			}
		}
		return new Measurement((double) usec / calls, (double) commands / calls);
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
	private static void print(List<ScriptVariants.Variant> variants, Map<String, List<Measurement>> results) {
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
		for (ScriptVariants.Variant variant : variants.subList(1, variants.size())) {
			List<Measurement> measured = results.get(variant.name());
			// a batch's iteration is several decisions: its figures are per decision, each above the unit as a body
			// of one decision is
			int decisions = variant.decisions();
			double above = min(measured) / decisions - unitMin;
			double aboveMedian = Table.median(measured, Measurement::micros) / decisions - unitMedian;
			System.out.printf(Locale.ROOT, "| %-68s | %8.2f | %10.2f | %12.2f | %9.2f | %12.2f |%n", variant.name(),
					Table.median(measured, Measurement::commands) / decisions, above, aboveMedian, above / lessonMin,
					aboveMedian / lessonMedian);
		}
		System.out.printf(Locale.ROOT,
				"µs per call above one command's body (the unit: %.2f µs min, %.2f median per iteration, %.2f commands)%n",
				unitMin, unitMedian, Table.median(unit, Measurement::commands));
	}

}
