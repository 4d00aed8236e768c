package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.StringJoiner;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.spring.HeaderStyle;

import org.springframework.http.HttpHeaders;

/**
 * Owns the rate-limit header fields and their formats.
 *
 * <p>
 * {@code ietf}: {@code RateLimit-Policy: "name";q=<limit>;w=<window s>} and
 * {@code RateLimit: "name";r=<remaining>;t=<s>}, one list item per limit (draft-ietf-httpapi-ratelimit-headers-10;
 * structured-field lists, RFC 9651). {@code w} is the window in whole seconds, rounded up when it is shorter than
 * 1 s or not whole (a 500 ms window shows {@code w=1}). {@code t} is, for a limit that denied the request, the
 * {@code Retry-After} value; otherwise the seconds until more quota is available ({@code r} grows), rounded up, 0
 * when the allowance is full.
 *
 * <p>
 * {@code legacy} and {@code x-ratelimit}: {@code [X-]RateLimit-Limit}, {@code -Remaining} and {@code -Reset}
 * (seconds until the full allowance is back, as the early drafts define it; {@code Retry-After} for a denying
 * limit) of the most restrictive limit only, since these fields hold one value.
 *
 * <p>
 * {@code Retry-After} (RFC 9110 §10.2.3) is delay-seconds: {@code ceil(retryAfterMs / 1000)}, at least 1, so a client
 * that waits that long is admitted if nothing else arrived; for a concurrency limit, a hint ({@link ConcurrencyHint}).
 * A concurrency limit's items have {@code qu="concurrent-requests"} and neither {@code w} nor {@code t}
 * (docs/HTTP.md, "Concurrency limits").
 *
 * <p>
 * Internal to the starter: the Actuator endpoint shows a client's state as these fields would.
 */
public final class RateLimitHeaderWriter {

	/** The {@code ietf} style's state of each limit for the client. */
	public static final String RATE_LIMIT = "RateLimit";

	/** The {@code ietf} style's limits. */
	public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";

	/** The {@code legacy} style's limit of the most restrictive limit; {@code X-} before it in {@code x-ratelimit}. */
	public static final String LIMIT = "RateLimit-Limit";

	/** The {@code legacy} style's units left in the most restrictive limit ({@link #LIMIT}). */
	public static final String REMAINING = "RateLimit-Remaining";

	/** The {@code legacy} style's seconds until the most restrictive limit's allowance is full ({@link #LIMIT}). */
	public static final String RESET = "RateLimit-Reset";

	private final HeaderStyle style;

	public RateLimitHeaderWriter(HeaderStyle style) {
		this.style = style;
	}

	/** {@code Retry-After} in delay-seconds for a wait in ms: rounded up, at least 1. */
	public static long retryAfterSeconds(long retryAfterMs) {
		return Math.max(1, ceilSeconds(retryAfterMs));
	}

	/**
	 * Adds the fields of {@code decisions} to a response that goes ahead. Limits decided earlier for the same request
	 * (a filter rule, then an annotation) keep their list items; single-valued fields keep the most restrictive.
	 */
	void addTo(LimitedRequest request, List<LimitDecision> decisions) {
		if (this.style == HeaderStyle.IETF) {
			request.setResponseHeader(RATE_LIMIT_POLICY,
					join(request.responseHeader(RATE_LIMIT_POLICY), policies(decisions)));
			request.setResponseHeader(RATE_LIMIT, join(request.responseHeader(RATE_LIMIT), states(decisions)));
			return;
		}
		if (this.style != HeaderStyle.NONE) {
			LimitDecision mostRestrictive = mostRestrictive(decisions);
			List<String> present = request.responseHeader(prefix() + REMAINING);
			if (present.isEmpty() || Long.parseLong(present.get(0)) > mostRestrictive.remaining()) {
				HttpHeaders headers = new HttpHeaders();
				single(headers, mostRestrictive);
				headers.forEach((name, values) -> request.setResponseHeader(name, values.get(0)));
			}
		}
	}

	/**
	 * The fields of a denied request: {@code Retry-After} unless it can never be admitted, and the rate-limit fields
	 * of every limit decided for it, including list items already on its response.
	 */
	HttpHeaders denied(LimitedRequest request, List<LimitDecision> decisions, LimitDecision governing) {
		HttpHeaders headers = new HttpHeaders();
		governing.retryAfterMs()
			.ifPresent((ms) -> headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(ms))));
		if (this.style == HeaderStyle.IETF) {
			headers.set(RATE_LIMIT_POLICY, join(request.responseHeader(RATE_LIMIT_POLICY), policies(decisions)));
			headers.set(RATE_LIMIT, join(request.responseHeader(RATE_LIMIT), states(decisions)));
		}
		else if (this.style != HeaderStyle.NONE) {
			single(headers, governing);
		}
		return headers;
	}

	private void single(HttpHeaders headers, LimitDecision decision) {
		headers.set(prefix() + LIMIT, Long.toString(decision.request().definition().limit()));
		headers.set(prefix() + REMAINING, Long.toString(decision.remaining()));
		// a concurrency limit has no time at which its allowance is known to be back
		if (decision.request().definition().algorithm().rate()) {
			headers.set(prefix() + RESET, Long.toString(resetSeconds(decision)));
		}
	}

	private String prefix() {
		return prefix(this.style);
	}

	/**
	 * The name {@code style} gives a field of the {@code legacy} style: {@code field} ({@link #LIMIT}, {@link #REMAINING},
	 * {@link #RESET}) itself, or with {@code X-} before it for {@code x-ratelimit}.
	 */
	public static String singleValued(HeaderStyle style, String field) {
		return prefix(style) + field;
	}

	private static String prefix(HeaderStyle style) {
		return (style == HeaderStyle.X_RATELIMIT) ? "X-" : "";
	}

	// Loops rather than streams: these run on every limited request.
	private static String policies(List<LimitDecision> decisions) {
		if (decisions.size() == 1) {
			return policyItem(decisions.get(0));
		}
		StringJoiner items = new StringJoiner(", ");
		for (LimitDecision decision : decisions) {
			items.add(policyItem(decision));
		}
		return items.toString();
	}

	private static String states(List<LimitDecision> decisions) {
		if (decisions.size() == 1) {
			return stateItem(decisions.get(0));
		}
		StringJoiner items = new StringJoiner(", ");
		for (LimitDecision decision : decisions) {
			items.add(stateItem(decision));
		}
		return items.toString();
	}

	/**
	 * The decision's list item of {@code RateLimit-Policy}: {@code "name";q=<limit>;w=<window s>}; for a concurrency
	 * limit {@code "name";q=<requests in flight>;qu="concurrent-requests"}, without a window.
	 */
	public static String policyItem(LimitDecision decision) {
		return policyItem(decision.request().definition());
	}

	/** {@code limit}'s list item of {@code RateLimit-Policy}, as {@link #policyItem(LimitDecision)} writes it. */
	public static String policyItem(LimitDefinition limit) {
		if (!limit.algorithm().rate()) {
			return quoted(limit.name()) + ";q=" + limit.limit() + ";qu=\"concurrent-requests\"";
		}
		return quoted(limit.name()) + ";q=" + limit.limit() + ";w=" + Math.max(1, ceilSeconds(limit.windowMs()));
	}

	/**
	 * The decision's list item of {@code RateLimit}: {@code "name";r=<remaining>;t=<s>}; for a concurrency limit
	 * {@code "name";r=<requests that may still start>}, without {@code t}: no time is known within which it stays put.
	 */
	public static String stateItem(LimitDecision decision) {
		if (!decision.request().definition().algorithm().rate()) {
			return quoted(decision.request().name()) + ";r=" + decision.remaining();
		}
		long t = denying(decision) ? retryAfterSeconds(decision.retryAfterMs().getAsLong())
				: ceilSeconds(decision.moreAfterMs());
		return quoted(decision.request().name()) + ";r=" + decision.remaining() + ";t=" + t;
	}

	/** {@code -Reset}: Retry-After for a denying limit, else the seconds until the full allowance is back. */
	private static long resetSeconds(LimitDecision decision) {
		return denying(decision) ? retryAfterSeconds(decision.retryAfterMs().getAsLong())
				: ceilSeconds(decision.resetAfterMs());
	}

	/**
	 * Denied, and admissible after a wait, so that its retry-after is present (a request that can never fit has no
	 * wait to announce).
	 */
	private static boolean denying(LimitDecision decision) {
		return !decision.allowed() && !decision.never();
	}

	private static LimitDecision mostRestrictive(List<LimitDecision> decisions) {
		LimitDecision result = decisions.get(0);
		for (LimitDecision decision : decisions) {
			if (decision.remaining() < result.remaining()) {
				result = decision;
			}
		}
		return result;
	}

	/** An sf-string (RFC 9651 §3.3.3): printable ASCII with {@code "} and {@code \} escaped. */
	private static String quoted(String name) {
		if (plain(name)) {
			// the usual name: one concatenation, not a builder and a copy of its chars, on every limited request
			return "\"" + name + "\"";
		}
		StringBuilder quoted = new StringBuilder("\"");
		for (char ch : name.toCharArray()) {
			if (ch == '"' || ch == '\\') {
				quoted.append('\\').append(ch);
			}
			else {
				quoted.append((ch >= 0x20 && ch < 0x7f) ? ch : '?');
			}
		}
		return quoted.append('"').toString();
	}

	/** Printable ASCII without {@code "} or {@code \}: quoted as it is. */
	private static boolean plain(String name) {
		for (int i = 0; i < name.length(); i++) {
			char ch = name.charAt(i);
			if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\') {
				return false;
			}
		}
		return true;
	}

	private static String join(Collection<String> present, String items) {
		if (present.isEmpty()) {
			return items;
		}
		List<String> all = new ArrayList<>(present);
		all.add(items);
		return String.join(", ", all);
	}

	private static long ceilSeconds(long ms) {
		return Math.floorDiv(ms + 999, 1000);
	}

}
