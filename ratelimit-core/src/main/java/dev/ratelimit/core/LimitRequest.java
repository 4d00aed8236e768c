package dev.ratelimit.core;

import java.util.Objects;

/**
 * What one call asks of one limit: the limit's shape, the units the call takes from it, and whether the limit is
 * enforced or shadow for this call. A request passes one per limit to {@link RateLimiter#tryAcquire(String, java.util.List)},
 * so that each limit has a cost of its own.
 *
 * <p>
 * The canonical constructor throws {@link InvalidLimitException} naming {@code cost} when the cost is below 1, or when
 * the scripts' arithmetic with it would leave the exact integer range of a Lua number
 * ({@code (max(limit, capacity, cost) + 1) × window in ms < 2^52}). A cost above the limit (or the capacity) is
 * accepted: such a request is decided as never admitted ({@link LimitDecision#never()}). Configuration with a fixed
 * cost should use {@link #requireCostFits()} to reject it at startup.
 *
 * @param definition the limit's shape; its name, algorithm and window identify its state
 * @param cost units the call takes, at least 1
 * @param shadow whether the limit is observed only: it is decided with the enforced limits of the same call, and
 * consumes exactly when it admits and every enforced limit admits, but its denial blocks nothing. Shadow does not
 * change the limit's state identity (its Redis key): moving a limit between shadow and enforced keeps its state.
 */
public record LimitRequest(LimitDefinition definition, long cost, boolean shadow) {

	public LimitRequest {
		Objects.requireNonNull(definition, "definition must not be null");
		LimitDefinition.requirePositive("cost", cost, definition.name());
		if (!LimitDefinition.fitsExactRange(cost, definition.windowMs())) {
			throw LimitDefinition.outOfExactRange("cost", definition.name(), cost, definition.windowMs());
		}
	}

	/** A request of cost 1, enforced; the same as {@link LimitDefinition#request()}. */
	public static LimitRequest of(LimitDefinition definition) {
		return new LimitRequest(definition, 1, false);
	}

	/** The limit's name. */
	public String name() {
		return this.definition.name();
	}

	/**
	 * This request with another cost.
	 * @throws InvalidLimitException naming {@code cost} if it is below 1 or out of range
	 */
	public LimitRequest withCost(long cost) {
		return new LimitRequest(this.definition, cost, this.shadow);
	}

	/** This request, shadow or enforced. */
	public LimitRequest withShadow(boolean shadow) {
		return new LimitRequest(this.definition, this.cost, shadow);
	}

	/**
	 * Checks that a request of this cost can ever be admitted, for configuration whose cost is fixed.
	 * @return this request
	 * @throws InvalidLimitException naming {@code cost} if it exceeds the limit, or for the token bucket the capacity
	 */
	public LimitRequest requireCostFits() {
		long bound = this.definition.maxCost();
		if (this.cost > bound) {
			throw new InvalidLimitException("cost", "cost " + this.cost + " of rate limit '" + name() + "' exceeds its "
					+ ((this.definition.algorithm() == Algorithm.TOKEN_BUCKET) ? "capacity " : "limit ") + bound
					+ ": such a request could never be admitted");
		}
		return this;
	}

}
