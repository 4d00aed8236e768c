package dev.ratelimit.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The Redis key layout: {@code <prefix>{<client>}:<limit name>:<algorithm>:<window>}, for example
 * {@code rl:{q1y3VdJ8ZtXo}:api:tb:1s}; a fixed window of calendar periods has {@code cal} for its window, whatever
 * the period and zone ({@code rl:{q1y3VdJ8ZtXo}:daily:fw:cal}).
 *
 * <p>
 * {@code {<client>}} is the Redis Cluster hash tag, so every limit of one client lives in one slot and one script
 * call can decide them together. The client id is stored as the first {@value #TAG_BYTES} bytes of its SHA-256
 * (base64url, 12 characters): a secret such as an API key never appears in Redis, an id of any length makes a
 * short key, and no id can inject braces or other structure. 72 bits keep clients apart in practice: among a billion
 * clients, the chance that any two share a tag is about 1 in 10,000, and finding an id that shares a given client's
 * tag takes about 2^72 hashes. Algorithm and window are part of the key so that reconfiguring a limit never reads
 * state written under another shape. Every character counts: the key name is most of an idle client's memory (see
 * {@code docs/BENCHMARKS.md}).
 */
final class RedisKeys {

	static final int TAG_BYTES = 9;

	/** The characters of a client's tag between its braces: {@link #TAG_BYTES} in base64url, unpadded. */
	static final int TAG_LENGTH = (TAG_BYTES * 4 + 2) / 3;

	private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

	private static final MessageDigest SHA_256 = newSha256();

	/** The units a window is written in, largest first (every key is built with one: not allocated per call). */
	private static final long[] UNIT_MS = { 86_400_000, 3_600_000, 60_000, 1000 };

	private static final String[] UNIT_NAMES = { "d", "h", "m", "s" };

	private final String prefix;

	RedisKeys(String prefix) {
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("key prefix must not contain braces (they would change the Redis Cluster hash tag), but was '" + prefix + "'");
		}
		this.prefix = prefix;
	}

	/**
	 * The state's key. A concurrency limit's has no window: its window is the lease time, and a lease time changed
	 * while calls are in flight must still count (and give back) their leases.
	 */
	String key(String clientId, LimitDefinition limit) {
		if (limit.calendar() != null) {
			// one state whatever the unit and zone: a change of either keeps the clients' counts (docs/ALGORITHMS.md)
			return this.prefix + clientTag(clientId) + ":" + limit.name() + ":" + limit.algorithm().code() + ":cal";
		}
		if (!limit.algorithm().rate()) {
			return this.prefix + clientTag(clientId) + ":" + limit.name() + ":" + limit.algorithm().code();
		}
		return this.prefix + clientTag(clientId) + ":" + limit.name() + ":" + limit.algorithm().code() + ":"
				+ window(limit.windowMs());
	}

	/**
	 * The usage set of the limit {@code name} in the period {@code [start, end)} (ms since the epoch):
	 * {@code <prefix>usage:<name>:<start>-<end>}, one for all clients; on a Redis Cluster one per hash slot,
	 * {@code <prefix>{<slot tag>}:usage:<name>:<start>-<end>}, where the tag ({@link ClusterSlots#tag}) hashes to
	 * {@code slot}, the client's: a script touches the keys of one slot only. The bounds name the period whatever its
	 * unit and zone, so that a usage period changed at runtime never adds to another period's set (a day and the
	 * month that start together end apart). No client tag: no client key ({@code <prefix>{...}}) can be one.
	 * @param slot the client's hash slot on a Cluster, or -1 for the one set
	 */
	String usageKey(String name, long start, long end, int slot) {
		String period = ":usage:" + name + ":" + start + "-" + end;
		return (slot < 0) ? this.prefix + period.substring(1) : this.prefix + ClusterSlots.tag(slot) + period;
	}

	/** The hash slot of the keys of {@code clientId} on a Redis Cluster. */
	static int slot(String clientId) {
		String tag = clientTag(clientId);
		return ClusterSlots.slot(tag.substring(1, tag.length() - 1));
	}

	/**
	 * The pattern ({@code PSUBSCRIBE}) of the channels that releases are announced on, each a concurrency limit's key
	 * (concurrency.lua): {@code <prefix>*}, the prefix's own glob characters escaped. As wide as the keys, so that an
	 * ACL user allowed the channels of its keys ({@code &rl:*}, which {@code PSUBSCRIBE} must match literally) may
	 * subscribe; a message on another channel under the prefix is no release anyone waits for, and is ignored.
	 */
	String leasePattern() {
		return escapedPrefix().append('*').toString();
	}

	/**
	 * The pattern ({@code SCAN MATCH}) of every client's state keys: {@code <prefix>{<12 characters>}:*}, the prefix's
	 * own glob characters escaped. No other key under the prefix matches it (the starter's {@code <prefix>{overrides}}).
	 */
	String statePattern() {
		return escapedPrefix().append('{').append("?".repeat(TAG_LENGTH)).append("}:*").toString();
	}

	private StringBuilder escapedPrefix() {
		StringBuilder pattern = new StringBuilder();
		for (char c : this.prefix.toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				pattern.append('\\');
			}
			pattern.append(c);
		}
		return pattern;
	}

	/**
	 * Tags computed lately, one per slot of the client id's hash: a client's requests come in runs, and a tag costs a
	 * SHA-256. A slot's tag is overwritten by the next client that hashes to it, so no number of clients grows this,
	 * and colliding ids cost what they cost without it.
	 */
	private static final AtomicReferenceArray<Tag> RECENT_TAGS = new AtomicReferenceArray<>(1024);

	private record Tag(String clientId, String tag) {
	}

	static String clientTag(String clientId) {
		int slot = clientId.hashCode() & (RECENT_TAGS.length() - 1);
		Tag recent = RECENT_TAGS.get(slot);
		if (recent != null && recent.clientId().equals(clientId)) {
			return recent.tag();
		}
		String tag = hashTag(clientId);
		RECENT_TAGS.set(slot, new Tag(clientId, tag));
		return tag;
	}

	private static String hashTag(String clientId) {
		byte[] digest = sha256().digest(clientId.getBytes(StandardCharsets.UTF_8));
		return "{" + BASE64URL.encodeToString(Arrays.copyOf(digest, TAG_BYTES)) + "}";
	}

	/**
	 * A fresh SHA-256 digest, cloned from one made once: {@code MessageDigest.getInstance} searches the security
	 * providers on every call, which took most of the time of building a key (docs/BENCHMARKS-HISTORY.md, "How the gap
	 * was found").
	 */
	private static MessageDigest sha256() {
		try {
			return (MessageDigest) SHA_256.clone();
		}
		catch (CloneNotSupportedException ex) {
			throw new IllegalStateException("the SHA-256 digest of this Java platform cannot be cloned", ex);
		}
	}

	private static MessageDigest newSha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

	/** The window in the largest of d, h, m, s that divides it, else in ms: {@code 1s}, {@code 90s}, {@code 250ms}. */
	static String window(long ms) {
		for (int i = 0; i < UNIT_MS.length; i++) {
			if (ms % UNIT_MS[i] == 0) {
				return (ms / UNIT_MS[i]) + UNIT_NAMES[i];
			}
		}
		return ms + "ms";
	}

}
