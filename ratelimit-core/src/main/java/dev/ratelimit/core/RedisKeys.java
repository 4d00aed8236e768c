package dev.ratelimit.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The Redis key layout: {@code <prefix>{<client>}:<limit name>:<algorithm>:<window ms>}.
 *
 * <p>
 * {@code {<client>}} is the Redis Cluster hash tag, so every limit of one client lives in one slot and one script
 * call can decide them together. The client id is stored as its SHA-256 (base64url, 43 characters): a secret such
 * as an API key never appears in Redis, an id of any length makes a bounded key, and no id can inject braces or
 * other structure. Algorithm and window are part of the key so that reconfiguring a limit never reads state
 * written under another shape.
 */
final class RedisKeys {

	private final String prefix;

	RedisKeys(String prefix) {
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("key prefix must not contain braces (they would change the Redis Cluster hash tag), but was '" + prefix + "'");
		}
		this.prefix = prefix;
	}

	String key(String clientId, LimitDefinition limit) {
		return this.prefix + clientTag(clientId) + ":" + limit.name() + ":" + limit.algorithm().code() + ":"
				+ limit.windowMs();
	}

	static String clientTag(String clientId) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(clientId.getBytes(StandardCharsets.UTF_8));
			return "{" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest) + "}";
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
