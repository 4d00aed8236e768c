package dev.ratelimit.core;

import java.time.InstantSource;
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
	 * @throws IllegalArgumentException if {@code limits} is empty or two limits share a name, or a concurrency limit
	 * has no lease
	 */
	static void check(String clientId, List<LimitRequest> limits) {
		Objects.requireNonNull(clientId, "clientId must not be null");
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("limits must not be empty");
		}
		if (limits.size() == 1) {
			checkLease(limits.get(0));
			return;
		}
		for (LimitRequest limit : limits) {
			checkLease(limit);
		}
		Set<String> names = new HashSet<>();
		for (LimitRequest limit : limits) {
			if (!names.add(limit.name())) {
				throw new IllegalArgumentException("limits applied to one request must have different names, but '"
						+ limit.name() + "' appears twice");
			}
		}
	}

	/** A concurrency limit is decided with the lease the call takes, and given back with it. */
	private static void checkLease(LimitRequest limit) {
		if (limit.lease() == null && !limit.definition().algorithm().rate()) {
			throw new IllegalArgumentException("concurrency limit '" + limit.name()
					+ "' needs the call's lease id (LimitRequest.withLease)");
		}
	}

	/**
	 * The checks of {@link #check} but the lease's, for {@link RateLimiter#peek}, which may ask about any call.
	 * @throws NullPointerException if {@code clientId} is null
	 */
	static void checkPeek(String clientId) {
		Objects.requireNonNull(clientId, "clientId must not be null");
	}

	/**
	 * For {@link RateLimiter#settle}.
	 * @throws NullPointerException if {@code clientId} is null
	 * @throws IllegalArgumentException if {@code settlements} is empty or two share a name
	 */
	static void checkSettle(String clientId, List<Settlement> settlements) {
		check(clientId, settlements.stream().map(Settlement::reservation).toList());
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

	/**
	 * For {@link RateLimiter#leases}.
	 * @throws IllegalArgumentException if {@code limit} is not a concurrency limit
	 */
	static void checkLeases(String clientId, LimitDefinition limit) {
		Objects.requireNonNull(clientId, "clientId must not be null");
		if (limit.algorithm().rate()) {
			throw new IllegalArgumentException("rate limit '" + limit.name() + "' (" + limit.algorithm()
					+ ") holds no leases; only a concurrency limit does");
		}
	}

	/**
	 * For {@link RateLimiter#usage}.
	 * @throws IllegalArgumentException if {@code limit} records no usage, {@code page} is negative or {@code size} is
	 * not 1 to {@value Usage#MAX_PAGE_SIZE}
	 */
	static void checkUsage(LimitDefinition limit, Usage.Period period, int page, int size) {
		Objects.requireNonNull(period, "period must not be null");
		if (limit.usage() == null) {
			throw noUsage(limit);
		}
		if (page < 0) {
			throw new IllegalArgumentException("page must be at least 0, but was " + page);
		}
		if (size < 1 || size > Usage.MAX_PAGE_SIZE) {
			throw new IllegalArgumentException("size must be 1 to " + Usage.MAX_PAGE_SIZE + ", but was " + size);
		}
	}

	static IllegalArgumentException noUsage(LimitDefinition limit) {
		return new IllegalArgumentException("rate limit '" + limit.name()
				+ "' records no usage (LimitDefinition.withUsage)");
	}

	/**
	 * The time of {@code clock} in ms.
	 * @throws IllegalArgumentException if it is negative or not below 2^52 (exact in Lua)
	 */
	static long timeOf(InstantSource clock) {
		long nowMs = clock.millis();
		if (nowMs < 0 || nowMs >= LimitDefinition.EXACT_BOUND) {
			throw new IllegalArgumentException(
					"a limiter's clock must read at least 0 and below 2^52 ms since the epoch (exact in Lua), but read " + nowMs);
		}
		return nowMs;
	}

}
