package dev.ratelimit.core;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The decision scripts, assembled per set of algorithms: Redis runs a script's whole source on every call, and each
 * algorithm a script holds costs the making of its functions (docs/BENCHMARKS.md, "The scripts inside Redis"), so a
 * decision runs the script of its own limits' algorithms. A set is a bit field: bit {@link Algorithm#ordinal()} for
 * each algorithm, {@link #CALENDAR} for the fixed window of calendar periods and {@link #USAGE} when a limit records
 * usage. {@link LuaScript} holds the public factories; the scripts' files are under
 * {@code dev/ratelimit/core/scripts/}.
 */
final class DecisionScripts {

	/**
	 * Each algorithm's file, in {@link Algorithm}'s order, then the fixed window of calendar periods ({@link #CALENDAR});
	 * its constructor is the file's name without {@code .lua}.
	 */
	private static final String[] ALGORITHM_FILES = { "fixed_window.lua", "sliding_log.lua",
			"sliding_window_counter.lua", "token_bucket.lua", "concurrency.lua", "calendar_window.lua" };

	/** The bit of calendar_window.lua in a set: after the algorithms' own. */
	private static final int CALENDAR = Algorithm.values().length;

	/** The bit of usage.lua in a set: a limit of the call records usage. */
	private static final int USAGE = ALGORITHM_FILES.length;

	/** Every algorithm, calendar periods included, without usage: {@link LuaScript#rateLimit()}. */
	static final int ALL = (1 << ALGORITHM_FILES.length) - 1;

	/**
	 * What a script without usage.lua declares in its place, so that the decision and the settlement find nil. A
	 * constant: {@link LuaScript}'s settlement scripts use it without initialising this class (which reads its files
	 * through LuaScript).
	 */
	static final String NO_USAGE = "-- no limit of this call records usage (usage.lua)\nlocal usage_limits, record_usage\n";

	// All read when the class is: reading the class path later could block a reactive application's event loop.
	private static final String COMMON = LuaScript.read("common.lua");

	private static final String[] ALGORITHM_SOURCES = Arrays.stream(ALGORITHM_FILES)
		.map(LuaScript::read)
		.toArray(String[]::new);

	private static final String ALGORITHMS = LuaScript.read("algorithms.lua");

	/** One request's decision as a function (decide_request), which the decision and the batch scripts call. */
	private static final String DECISION = LuaScript.read("decision.lua");

	private static final String DECIDE = LuaScript.read("rate_limit.lua");

	private static final String BATCH = LuaScript.read("batch.lua");

	private static final String USAGE_SOURCE = LuaScript.read("usage.lua");

	/** The decision scripts by set, made when first used: identical if two threads make one at once. */
	private static final LuaScript[] DECISIONS = new LuaScript[1 << (USAGE + 1)];

	/** The batch scripts by set, as {@link #DECISIONS} (never with usage). */
	private static final LuaScript[] BATCHES = new LuaScript[1 << USAGE];

	private DecisionScripts() {
	}

	/** The set of {@code algorithms}, with usage when {@code usage} is true. */
	static int set(Collection<Algorithm> algorithms, boolean usage) {
		int set = usage ? 1 << USAGE : 0;
		for (Algorithm algorithm : algorithms) {
			set |= 1 << algorithm.ordinal();
		}
		return set;
	}

	/** The set of {@code limits}' algorithms, calendar periods included, and of usage if one records it. */
	static int set(List<LimitRequest> limits) {
		int set = 0;
		for (int i = 0; i < limits.size(); i++) {
			LimitDefinition limit = limits.get(i).definition();
			set |= 1 << ((limit.calendar() != null) ? CALENDAR : limit.algorithm().ordinal());
			if (limit.usage() != null) {
				set |= 1 << USAGE;
			}
		}
		return set;
	}

	/** Whether {@code set} holds usage: such a decision is never part of a batch. */
	static boolean recordsUsage(int set) {
		return (set & (1 << USAGE)) != 0;
	}

	/** The decision script of {@code limits}' algorithms, calendar periods included, and of usage if one records it. */
	static LuaScript forLimits(List<LimitRequest> limits) {
		return decision(set(limits));
	}

	/**
	 * The script that decides one request: the algorithm files of {@code set} joined with usage.lua (or its absence),
	 * {@code decision.lua} and {@code rate_limit.lua}, which documents its KEYS, ARGV and reply.
	 * @throws IllegalArgumentException when {@code set} holds no algorithm
	 */
	static LuaScript decision(int set) {
		if ((set & ALL) == 0) {
			throw new IllegalArgumentException("a decision needs at least one algorithm");
		}
		LuaScript script = DECISIONS[set];
		if (script == null) {
			script = LuaScript.of(algorithmsPart(set) + (recordsUsage(set) ? USAGE_SOURCE : NO_USAGE) + DECISION
					+ DECIDE);
			DECISIONS[set] = script;
		}
		return script;
	}

	/**
	 * The script that decides several requests in one call, in order, each as {@link #decision} decides it alone: the
	 * algorithm files of {@code set} (the union of the members' sets, without usage) joined with {@code decision.lua}
	 * and {@code batch.lua}, which documents its KEYS, ARGV and reply.
	 * @throws IllegalArgumentException when {@code set} holds no algorithm, or usage
	 */
	static LuaScript batch(int set) {
		if ((set & ALL) == 0 || recordsUsage(set)) {
			throw new IllegalArgumentException("a batch needs algorithms, and none that records usage: " + set);
		}
		LuaScript script = BATCHES[set];
		if (script == null) {
			script = LuaScript.of(algorithmsPart(set) + NO_USAGE + DECISION + BATCH);
			BATCHES[set] = script;
		}
		return script;
	}

	/** common.lua, the algorithm files of {@code set} (the others declared nil) and algorithms.lua. */
	private static String algorithmsPart(int set) {
		StringBuilder source = new StringBuilder(COMMON);
		StringBuilder absent = new StringBuilder();
		for (int i = 0; i < ALGORITHM_FILES.length; i++) {
			if ((set & (1 << i)) != 0) {
				source.append(ALGORITHM_SOURCES[i]);
			}
			else {
				absent.append((absent.length() > 0) ? ", " : "")
					.append(ALGORITHM_FILES[i], 0, ALGORITHM_FILES[i].length() - ".lua".length());
			}
		}
		if (absent.length() > 0) {
			// declared, and nil: algorithms.lua answers their codes as unknown
			source.append("-- algorithms not in this script (LuaScript.rateLimit(algorithms))\nlocal ")
				.append(absent)
				.append('\n');
		}
		return source.append(ALGORITHMS).toString();
	}

}
