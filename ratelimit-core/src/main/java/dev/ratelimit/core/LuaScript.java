package dev.ratelimit.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * A Lua script's source and its SHA-1, the digest under which Redis caches it ({@code EVALSHA}).
 *
 * @param source the script text
 * @param sha1 lower-case hex SHA-1 of the UTF-8 source, as {@code SCRIPT LOAD} returns it
 */
public record LuaScript(String source, String sha1) {

	/** What the decision, the peek and the settlement share: the arithmetic, the four algorithms and concurrency. */
	private static final String[] ALGORITHM_PARTS = { "common.lua", "fixed_window.lua", "sliding_log.lua",
			"sliding_window_counter.lua", "token_bucket.lua", "concurrency.lua", "calendar_window.lua",
			"algorithms.lua" };

	/**
	 * Each algorithm's file, in {@link Algorithm}'s order (as in {@link #ALGORITHM_PARTS}), then the fixed window of
	 * calendar periods ({@link #CALENDAR}); its constructor is the file's name without {@code .lua}.
	 */
	private static final String[] ALGORITHM_FILES = { "fixed_window.lua", "sliding_log.lua",
			"sliding_window_counter.lua", "token_bucket.lua", "concurrency.lua", "calendar_window.lua" };

	/** The bit of calendar_window.lua in a script's set: after the algorithms' own. */
	private static final int CALENDAR = Algorithm.values().length;

	/** The bit of usage.lua in a decision script's set: a limit of the call records usage. */
	private static final int USAGE = ALGORITHM_FILES.length;

	/** What a script without usage.lua declares in its place, so that the decision and the settlement find nil. */
	private static final String NO_USAGE = "-- no limit of this call records usage (usage.lua)\nlocal usage_limits, record_usage\n";

	// All read when the class is: reading the class path later could block a reactive application's event loop.
	private static final String COMMON = read("common.lua");

	private static final String[] ALGORITHM_SOURCES = Arrays.stream(ALGORITHM_FILES)
		.map(LuaScript::read)
		.toArray(String[]::new);

	private static final String ALGORITHMS = read("algorithms.lua");

	/** One request's decision as a function (decide_request), which the decision and the batch scripts call. */
	private static final String DECISION = read("decision.lua");

	private static final String DECIDE = read("rate_limit.lua");

	private static final String BATCH = read("batch.lua");

	private static final String USAGE_SOURCE = read("usage.lua");

	/**
	 * The decision scripts by the set of algorithms they hold (bit {@link Algorithm#ordinal()}), made when first
	 * used: identical if two threads make one at once.
	 */
	private static final LuaScript[] RATE_LIMITS = new LuaScript[1 << (USAGE + 1)];

	/** The batch scripts by the set of algorithms they hold, as {@link #RATE_LIMITS} (never with usage). */
	private static final LuaScript[] BATCHES = new LuaScript[1 << USAGE];

	private static final LuaScript RATE_LIMIT = rateLimit((1 << ALGORITHM_FILES.length) - 1);

	private static final LuaScript PEEK = load(ALGORITHM_PARTS, "peek.lua");

	private static final LuaScript SETTLE = of(parts(ALGORITHM_PARTS) + NO_USAGE + read("settle.lua"));

	private static final LuaScript SETTLE_USAGE = of(parts(ALGORITHM_PARTS) + USAGE_SOURCE + read("usage_settle.lua")
			+ read("settle.lua"));

	private static final LuaScript USAGE_PAGE = load(new String[0], "usage_page.lua");

	private static final LuaScript RESET = load(new String[0], "reset.lua");

	private static final LuaScript RESET_ALL = load(new String[0], "reset_all.lua");

	private static final LuaScript LEASES = load(new String[] { "common.lua" }, "leases.lua");

	/**
	 * @throws IllegalArgumentException if {@code sha1} is not the SHA-1 of {@code source}: EVALSHA would run another
	 * script, or none
	 */
	public LuaScript {
		if (!sha1(source).equals(sha1)) {
			throw new IllegalArgumentException("sha1 " + sha1 + " is not the SHA-1 of the script's source");
		}
	}

	/** A script with its digest computed from {@code source}. */
	public static LuaScript of(String source) {
		return new LuaScript(source, sha1(source));
	}

	private static String sha1(String source) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every Java platform", ex);
		}
	}

	/**
	 * The script that decides one request against one or several limits: the algorithm files under
	 * {@code dev/ratelimit/core/scripts/} joined with {@code rate_limit.lua}, which documents its KEYS, ARGV and
	 * reply.
	 */
	public static LuaScript rateLimit() {
		return RATE_LIMIT;
	}

	/**
	 * {@link #rateLimit()} holding only {@code algorithms}: the script of a decision whose limits use these. Redis runs
	 * a script's whole source on every call, and each algorithm it holds costs the making of its function (0.05 to
	 * 0.1 µs of Redis' CPU each, docs/BENCHMARKS.md "The scripts inside Redis"), so a decision runs the script of its
	 * own algorithms; a limit of another algorithm is answered as unknown.
	 * @throws IllegalArgumentException when {@code algorithms} is empty
	 */
	public static LuaScript rateLimit(Collection<Algorithm> algorithms) {
		int set = 0;
		for (Algorithm algorithm : algorithms) {
			set |= 1 << algorithm.ordinal();
		}
		if (set == 0) {
			throw new IllegalArgumentException("a decision needs at least one algorithm");
		}
		return rateLimit(set);
	}

	/**
	 * {@link #rateLimit(Collection)}, with {@code usage.lua} when {@code usage} is true: the script of a decision one
	 * of whose limits records usage ({@link LimitDefinition#withUsage}), which documents the KEYS and ARGV it adds.
	 * @throws IllegalArgumentException when {@code algorithms} is empty
	 */
	public static LuaScript rateLimit(Collection<Algorithm> algorithms, boolean usage) {
		LuaScript script = rateLimit(algorithms);
		if (!usage) {
			return script;
		}
		int set = 1 << USAGE;
		for (Algorithm algorithm : algorithms) {
			set |= 1 << algorithm.ordinal();
		}
		return rateLimit(set);
	}

	/**
	 * The script that decides several requests in one call ({@code batch.lua}, which documents its KEYS, ARGV and
	 * reply), holding {@code algorithms}: what {@link RedisRateLimiter} sends for decisions that arrived while a call
	 * was in flight.
	 * @throws IllegalArgumentException when {@code algorithms} is empty
	 */
	public static LuaScript batch(Collection<Algorithm> algorithms) {
		int set = 0;
		for (Algorithm algorithm : algorithms) {
			set |= 1 << algorithm.ordinal();
		}
		return forBatch(set);
	}

	/** The decision script of {@code limits}' algorithms, calendar periods included, and of usage if one records it. */
	static LuaScript forLimits(List<LimitRequest> limits) {
		return rateLimit(algorithms(limits));
	}

	/** The set of {@code limits}' algorithms, calendar periods included, and of usage if one records it. */
	static int algorithms(List<LimitRequest> limits) {
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

	/** Whether a set of {@link #algorithms} holds usage: such a decision is never part of a batch. */
	static boolean recordsUsage(int set) {
		return (set & (1 << USAGE)) != 0;
	}

	/**
	 * The script that decides several requests in one call, in order, each as {@link #rateLimit()} decides it alone:
	 * the algorithm files of {@code set} (the union of the members' {@link #algorithms}, without usage) joined with
	 * {@code decision.lua} and {@code batch.lua}, which documents its KEYS, ARGV and reply.
	 * @throws IllegalArgumentException when {@code set} is empty or holds usage
	 */
	static LuaScript forBatch(int set) {
		if (set == 0 || recordsUsage(set)) {
			throw new IllegalArgumentException("a batch needs algorithms, and none that records usage: " + set);
		}
		LuaScript script = BATCHES[set];
		if (script == null) {
			script = of(algorithmsPart(set) + NO_USAGE + DECISION + BATCH);
			BATCHES[set] = script;
		}
		return script;
	}

	/** The settlement script, with usage.lua when a limit of {@code settlements} records usage. */
	static LuaScript forSettlements(List<Settlement> settlements) {
		for (Settlement settlement : settlements) {
			if (settlement.reservation().definition().usage() != null) {
				return SETTLE_USAGE;
			}
		}
		return SETTLE;
	}

	private static LuaScript rateLimit(int set) {
		LuaScript script = RATE_LIMITS[set];
		if (script == null) {
			script = of(algorithmsPart(set) + (recordsUsage(set) ? USAGE_SOURCE : NO_USAGE) + DECISION + DECIDE);
			RATE_LIMITS[set] = script;
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

	/**
	 * The script that reads one client's state of one limit without consuming: the algorithm files joined with
	 * {@code peek.lua}, which documents its KEYS, ARGV and reply.
	 */
	public static LuaScript peek() {
		return PEEK;
	}

	/**
	 * The script that settles reservations of one client: the algorithm files joined with {@code settle.lua}, which
	 * documents its KEYS, ARGV and reply.
	 */
	public static LuaScript settle() {
		return SETTLE;
	}

	/**
	 * The script that lists the leases held of one client's concurrency limit: {@code common.lua} joined with
	 * {@code leases.lua}, which documents its KEYS, ARGV and reply.
	 */
	public static LuaScript leases() {
		return LEASES;
	}

	/** The script that deletes one client's state of some limits: {@code reset.lua}. */
	public static LuaScript reset() {
		return RESET;
	}

	/**
	 * The script that deletes one batch of the keys of clients' states under a key prefix: {@code reset_all.lua}, which
	 * documents its ARGV and reply.
	 */
	public static LuaScript resetAll() {
		return RESET_ALL;
	}

	/**
	 * The script that reads one page of a usage set, largest clients first: {@code usage_page.lua}, which documents
	 * its KEYS, ARGV and reply.
	 */
	public static LuaScript usagePage() {
		return USAGE_PAGE;
	}

	private static LuaScript load(String[] common, String script) {
		return of(parts(Stream.concat(Arrays.stream(common), Stream.of(script)).toArray(String[]::new)));
	}

	private static String parts(String[] parts) {
		StringBuilder source = new StringBuilder();
		for (String part : parts) {
			source.append(read(part));
		}
		return source.toString();
	}

	private static String read(String part) {
		try (InputStream in = LuaScript.class.getResourceAsStream("scripts/" + part)) {
			if (in == null) {
				throw new IllegalStateException("script resource missing: " + part);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
