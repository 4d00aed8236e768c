package dev.ratelimit.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** What the scripts reply, read: a reply is a list of integers as the executors read it (see each script's header). */
final class ScriptReplies {

	/** The scripts' retry-after of a cost that can never fit (rate_limit.lua, peek.lua). */
	private static final long SCRIPT_NEVER = -1;

	/**
	 * Integers per limit in a decision's reply: allowed, remaining, retry, reset, more, decided at (see rate_limit.lua;
	 * peek.lua, settle.lua and each decided member of batch.lua reply alike).
	 */
	static final int PER_LIMIT = 6;

	private ScriptReplies() {
	}

	/**
	 * The decisions of a decision script's reply, {@link #PER_LIMIT} integers per limit of {@code limits}, in order.
	 * @throws IllegalStateException when the reply has another length
	 */
	static RateLimitDecision decisions(List<LimitRequest> limits, List<Long> reply) {
		if (reply.size() != PER_LIMIT * limits.size()) {
			throw new IllegalStateException("rate-limit script replied " + reply + " for " + limits.size() + " limits");
		}
		List<LimitDecision> decisions = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			int at = PER_LIMIT * i;
			long retry = reply.get(at + 2);
			decisions.add(new LimitDecision(limits.get(i), reply.get(at) == 1,
					(retry == SCRIPT_NEVER) ? OptionalLong.empty() : OptionalLong.of(retry),
					new LimitDecision.Allowance(reply.get(at + 1), reply.get(at + 3), reply.get(at + 4)),
					reply.get(at + 5)));
		}
		return new RateLimitDecision(decisions);
	}

	/** The leases of {@code leases.lua}'s reply: per lease its expiry, its id's length in bytes, then its bytes. */
	static List<HeldLease> leases(List<Long> reply) {
		List<HeldLease> leases = new ArrayList<>();
		int at = 0;
		while (at < reply.size()) {
			int length = reply.get(at + 1).intValue();
			leases.add(new HeldLease(text(reply, at + 2, length), reply.get(at)));
			at += 2 + length;
		}
		return leases;
	}

	/**
	 * The text of {@code length} bytes of a script's reply from {@code from}, one byte an integer (leases.lua,
	 * usage_page.lua, batch.lua's errors): a script's reply holds integers as the executors read it.
	 */
	static String text(List<Long> reply, int from, int length) {
		byte[] text = new byte[length];
		for (int i = 0; i < length; i++) {
			text[i] = reply.get(from + i).byteValue();
		}
		return new String(text, StandardCharsets.UTF_8);
	}

}
