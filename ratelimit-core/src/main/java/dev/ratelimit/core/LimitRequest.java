package dev.ratelimit.core;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

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
 * @param lease for a {@link Algorithm#CONCURRENCY} limit, the id of the lease the call takes, made by the caller so
 * that it can give the lease back even when it never saw the answer (an acquire that timed out on the caller's side
 * still runs in Redis); 1 to 100 printable ASCII characters without spaces, unique among the client's calls in flight
 * (see {@link #newLeaseId()}). Needed to decide a concurrency limit, optional to {@link RateLimiter#peek peek} it;
 * {@code null} for the other algorithms.
 */
public record LimitRequest(LimitDefinition definition, long cost, boolean shadow, @Nullable String lease) {

	/**
	 * @throws InvalidLimitException naming {@code cost} when it is below 1 or out of range, or other than 1 for a
	 * concurrency limit (a call takes one lease)
	 * @throws IllegalArgumentException when {@code lease} is given for a rate limit, or is not 1 to 100 printable ASCII
	 * characters without spaces
	 */
	public LimitRequest {
		Objects.requireNonNull(definition, "definition must not be null");
		LimitDefinition.requirePositive("cost", cost, definition.name());
		if (!LimitDefinition.fitsExactRange(cost, definition.scaleMs())) {
			throw LimitDefinition.outOfExactRange("cost", definition.name(), cost, definition.scaleMs());
		}
		if (!definition.algorithm().rate() && cost != 1) {
			throw new InvalidLimitException("cost", "cost of concurrency limit '" + definition.name()
					+ "' must be 1 (a call takes one lease), but was " + cost);
		}
		if (lease != null) {
			if (definition.algorithm().rate()) {
				throw new IllegalArgumentException("a lease applies to a concurrency limit, not to rate limit '"
						+ definition.name() + "' (" + definition.algorithm() + ")");
			}
			if (lease.isEmpty() || lease.length() > 100 || lease.chars().anyMatch((ch) -> ch <= ' ' || ch > '~')) {
				throw new IllegalArgumentException(
						"a lease id must be 1 to 100 printable ASCII characters without spaces, but was '" + lease + "'");
			}
		}
	}

	/** A request of {@code cost} units, enforced or shadow, without a lease. */
	public LimitRequest(LimitDefinition definition, long cost, boolean shadow) {
		this(definition, cost, shadow, null);
	}

	/** A request of cost 1, enforced; the same as {@link LimitDefinition#request()}. */
	public static LimitRequest of(LimitDefinition definition) {
		return new LimitRequest(definition, 1, false);
	}

	/**
	 * A new lease id: 22 characters of 128 random bits (base64url), unique among every caller's leases in practice.
	 */
	public static String newLeaseId() {
		return LeaseIds.next();
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
		return new LimitRequest(this.definition, cost, this.shadow, this.lease);
	}

	/** This request, shadow or enforced. */
	public LimitRequest withShadow(boolean shadow) {
		return new LimitRequest(this.definition, this.cost, shadow, this.lease);
	}

	/**
	 * This request taking the lease {@code lease} when its limit is a concurrency limit; this request itself for a rate
	 * limit, which takes no lease (so that a caller can give one lease id to every limit of a call).
	 * @throws IllegalArgumentException when {@code lease} is not a valid lease id
	 */
	public LimitRequest withLease(String lease) {
		if (this.definition.algorithm().rate()) {
			return this;
		}
		return new LimitRequest(this.definition, this.cost, this.shadow, Objects.requireNonNull(lease, "lease"));
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
