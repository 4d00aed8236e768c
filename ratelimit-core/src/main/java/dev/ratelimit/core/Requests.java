package dev.ratelimit.core;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** The checks every {@link RateLimiter} of the core makes of a request before deciding it. */
final class Requests {

	private Requests() {
	}

	/**
	 * @throws NullPointerException if {@code clientId} is null
	 * @throws IllegalArgumentException if {@code limits} is empty or two limits share a name
	 */
	static void check(String clientId, List<LimitDefinition> limits) {
		Objects.requireNonNull(clientId, "clientId must not be null");
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("limits must not be empty");
		}
		if (limits.size() == 1) {
			return;
		}
		Set<String> names = new HashSet<>();
		for (LimitDefinition limit : limits) {
			if (!names.add(limit.name())) {
				throw new IllegalArgumentException("limits applied to one request must have different names, but '"
						+ limit.name() + "' appears twice");
			}
		}
	}

	/**
	 * For {@link RateLimiter#reset}, where names may repeat.
	 * @throws NullPointerException if {@code clientId} is null
	 * @throws IllegalArgumentException if {@code limits} is empty
	 */
	static void checkReset(String clientId, List<LimitDefinition> limits) {
		Objects.requireNonNull(clientId, "clientId must not be null");
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("limits must not be empty");
		}
	}

	/** @throws IllegalArgumentException if {@code nowMs} is negative or not below 2^52 */
	static void checkTime(long nowMs) {
		if (nowMs < 0 || nowMs >= LimitDefinition.EXACT_BOUND) {
			throw new IllegalArgumentException("nowMs must be at least 0 and below 2^52 (exact in Lua), but was " + nowMs);
		}
	}

}
