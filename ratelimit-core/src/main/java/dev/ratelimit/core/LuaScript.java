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

	/**
	 * What the peek and the settlement share with the decision (whose scripts {@link DecisionScripts} assembles per set
	 * of algorithms): the arithmetic, the algorithms, concurrency and calendar periods.
	 */
	private static final String[] ALGORITHM_PARTS = { "common.lua", "fixed_window.lua", "sliding_log.lua",
			"sliding_window_counter.lua", "token_bucket.lua", "concurrency.lua", "calendar_window.lua",
			"algorithms.lua" };

	private static final LuaScript PEEK = load(ALGORITHM_PARTS, "peek.lua");

	private static final LuaScript SETTLE = of(parts(ALGORITHM_PARTS) + DecisionScripts.NO_USAGE + read("settle.lua"));

	private static final LuaScript SETTLE_USAGE = of(parts(ALGORITHM_PARTS) + read("usage.lua")
			+ read("usage_settle.lua") + read("settle.lua"));

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
		return DecisionScripts.decision(DecisionScripts.ALL);
	}

	/**
	 * {@link #rateLimit()} holding only {@code algorithms}: the script of a decision whose limits use these. Redis runs
	 * a script's whole source on every call, and each algorithm it holds costs the making of its function (0.05 to
	 * 0.1 µs of Redis' CPU each, docs/BENCHMARKS.md "The scripts inside Redis"), so a decision runs the script of its
	 * own algorithms; a limit of another algorithm is answered as unknown.
	 * @throws IllegalArgumentException when {@code algorithms} is empty
	 */
	public static LuaScript rateLimit(Collection<Algorithm> algorithms) {
		return DecisionScripts.decision(DecisionScripts.set(algorithms, false));
	}

	/**
	 * {@link #rateLimit(Collection)}, with {@code usage.lua} when {@code usage} is true: the script of a decision one
	 * of whose limits records usage ({@link LimitDefinition#withUsage}), which documents the KEYS and ARGV it adds.
	 * @throws IllegalArgumentException when {@code algorithms} is empty
	 */
	public static LuaScript rateLimit(Collection<Algorithm> algorithms, boolean usage) {
		return DecisionScripts.decision(DecisionScripts.set(algorithms, usage));
	}

	/**
	 * The script that decides several requests in one call ({@code batch.lua}, which documents its KEYS, ARGV and
	 * reply), holding {@code algorithms}: what {@link RedisRateLimiter} sends for decisions that arrived while a call
	 * was in flight.
	 * @throws IllegalArgumentException when {@code algorithms} is empty
	 */
	public static LuaScript batch(Collection<Algorithm> algorithms) {
		return DecisionScripts.batch(DecisionScripts.set(algorithms, false));
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

	/** The text of {@code scripts/<part>}, a resource beside this class. */
	static String read(String part) {
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
