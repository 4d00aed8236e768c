package dev.ratelimit.core;

import java.util.Objects;

/**
 * What a call really cost, against what it reserved: the argument of {@link RateLimiter#settle}, which charges the
 * difference or gives it back (docs/ALGORITHMS.md, "Settling a reservation").
 *
 * @param reservation the limit as the call reserved it: its shape, and the provisional cost it took
 * @param reservedAtMs the time the reservation was decided at ({@link LimitDecision#decidedAtMs()}), ms since the
 * epoch
 * @param actualCost the units the call really took, at least 0: 0 gives back the whole reservation (a call that
 * turned out not to count, such as a successful login under a limit of failures). A cost beyond what the scripts'
 * exact arithmetic holds ({@code (cost + 1) × window in ms < 2^52}) is taken as the largest within it: no state holds
 * more (docs/ALGORITHMS.md, "Settling a reservation"), so the limit stays in debt as long as it can.
 */
public record Settlement(LimitRequest reservation, long reservedAtMs, long actualCost) {

	/**
	 * @throws IllegalArgumentException if {@code reservedAtMs} is negative, or {@code actualCost} below 0
	 * ({@link InvalidLimitException} naming {@code cost})
	 */
	public Settlement {
		Objects.requireNonNull(reservation, "reservation must not be null");
		if (reservedAtMs < 0) {
			throw new IllegalArgumentException("reservedAtMs must be a time since the epoch, not " + reservedAtMs
					+ " (a decision whose time is unknown cannot be settled)");
		}
		if (actualCost < 0) {
			throw new InvalidLimitException("cost", "the actual cost of rate limit '" + reservation.name()
					+ "' must be at least 0, not " + actualCost);
		}
		// the largest cost whose arithmetic is exact: no state holds more units than this anyway
		actualCost = Math.min(actualCost, LimitDefinition.EXACT_BOUND / reservation.definition().scaleMs() - 2);
		if (actualCost > 0) {
			// the checks of a request of that cost
			reservation.withCost(actualCost);
		}
	}

	/**
	 * The settlement of an admitted decision.
	 * @throws IllegalArgumentException as the constructor, or if {@code reservation} was not admitted or has no time
	 */
	public static Settlement of(LimitDecision reservation, long actualCost) {
		if (!reservation.allowed()) {
			throw new IllegalArgumentException("only an admitted decision reserved anything to settle");
		}
		return new Settlement(reservation.request(), reservation.decidedAtMs(), actualCost);
	}

	/**
	 * The settlement that gives back a concurrency limit's lease: an actual cost of 0, by the request that took it. Its
	 * lease id is all it needs, so a caller that never saw its acquire answered (it timed out) can send it too.
	 * @param lease the request with the lease id ({@link LimitRequest#withLease})
	 * @throws IllegalArgumentException if {@code lease} has no lease id
	 */
	public static Settlement release(LimitRequest lease) {
		if (lease.lease() == null) {
			throw new IllegalArgumentException("limit '" + lease.name() + "' holds no lease to give back");
		}
		return new Settlement(lease, 0, 0);
	}

	/** Units charged (above 0) or given back (below 0). */
	public long delta() {
		return this.actualCost - this.reservation.cost();
	}

}
