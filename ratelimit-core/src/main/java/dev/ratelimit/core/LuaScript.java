package dev.ratelimit.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script's source and its SHA-1, the digest under which Redis caches it ({@code EVALSHA}).
 *
 * @param source the script text
 * @param sha1 lower-case hex SHA-1 of the UTF-8 source, as {@code SCRIPT LOAD} returns it
 */
public record LuaScript(String source, String sha1) {

	private static final String[] RATE_LIMIT_PARTS = { "common.lua", "fixed_window.lua", "sliding_log.lua",
			"sliding_window_counter.lua", "token_bucket.lua", "rate_limit.lua" };

	private static final LuaScript RATE_LIMIT = load(RATE_LIMIT_PARTS);

	/** A script with its digest computed from {@code source}. */
	public static LuaScript of(String source) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
			return new LuaScript(source, HexFormat.of().formatHex(digest));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every Java platform", ex);
		}
	}

	/**
	 * The script that decides one request against one or several limits: the four algorithm files under
	 * {@code dev/ratelimit/core/scripts/} joined with {@code rate_limit.lua}, which documents its KEYS, ARGV and
	 * reply.
	 */
	public static LuaScript rateLimit() {
		return RATE_LIMIT;
	}

	private static LuaScript load(String... parts) {
		StringBuilder source = new StringBuilder();
		for (String part : parts) {
			try (InputStream in = LuaScript.class.getResourceAsStream("scripts/" + part)) {
				if (in == null) {
					throw new IllegalStateException("script resource missing: " + part);
				}
				source.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return of(source.toString());
	}

}
