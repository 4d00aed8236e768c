package dev.ratelimit.spring.limits;

import java.time.Duration;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InvalidLimitException;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * What every limit shares whatever configures it: the defaults ({@code ratelimit.defaults}) under what it sets, and
 * the one way a shape, a name and a cost become a limit, checked.
 */
final class LimitDefinitions implements PlanResolver.Definitions {

	private final LimitSettings.Defaults defaults;

	/**
	 * @throws InvalidConfigurationPropertyValueException naming the property when the defaults are invalid
	 */
	LimitDefinitions(LimitSettings.Defaults defaults) {
		this.defaults = defaults;
		checkDefaults();
	}

	LimitSettings.Defaults defaults() {
		return this.defaults;
	}

	/** What {@code set} sets over the defaults, with {@link #defaultWindow} where it sets neither window nor period. */
	LimitShape overDefaults(LimitSettings.Shape set) {
		LimitShape shape = LimitShape.of(this.defaults).with(set);
		return (set.getWindow() == null && shape.calendar() == null) ? shape.withWindow(defaultWindow(shape.algorithm()))
				: shape;
	}

	/**
	 * The window of a limit that sets none: the default window, or for a concurrency limit, whose window is its
	 * lease time, {@link LimitResolver#DEFAULT_LEASE_TIME}.
	 */
	private Duration defaultWindow(Algorithm algorithm) {
		return algorithm.rate() ? this.defaults.getWindow() : LimitResolver.DEFAULT_LEASE_TIME;
	}

	/**
	 * The cost a limit of {@code shape} takes per call: {@code set}, else the default cost; a concurrency limit's
	 * call takes one lease, whatever {@code ratelimit.defaults.cost} says.
	 */
	long cost(LimitShape shape, @Nullable Long set) {
		if (set != null) {
			return set;
		}
		return shape.algorithm().rate() ? this.defaults.getCost() : 1;
	}

	/**
	 * A concurrency limit's lease is given back when the call ends, whatever its outcome: charging by outcome, reserving
	 * and settling a cost mean nothing for it.
	 * @throws IllegalArgumentException when the limit is a concurrency limit charged by outcome
	 */
	static ConfiguredLimit requireChargedBeforeTheCall(ConfiguredLimit limit) {
		if (limit.concurrency() && (limit.chargedByOutcome() || limit.reserved())) {
			throw new InvalidLimitException("algorithm", "concurrency limit '" + limit.name()
					+ "' holds a lease while a call runs and gives it back when the call ends, whatever its outcome; it"
					+ " cannot be charged by outcome (chargeOn, chargeWhen, chargeOnStatus, charge-on-status, reserve,"
					+ " settleCost, settle-cost-header): use a rate limit for that");
		}
		return limit;
	}

	/**
	 * The limit of {@code name} in {@code shape}, taking {@code cost} per request, enforced.
	 * @throws InvalidLimitException naming the field when a value is invalid or the cost can never fit
	 */
	@Override
	public LimitRequest definition(String name, LimitShape shape, long cost) {
		if (shape.capacity() != null && shape.algorithm() != Algorithm.TOKEN_BUCKET) {
			throw new InvalidLimitException("capacity", "capacity of rate limit '" + name
					+ "' applies to the token bucket only, not to " + shape.algorithm());
		}
		if (shape.calendar() != null && shape.algorithm() != Algorithm.FIXED_WINDOW) {
			throw new InvalidLimitException("period", "rate limit '" + name + "' counts calendar periods ("
					+ shape.calendar() + "), which only the fixed-window algorithm takes, not " + Terms.of(shape.algorithm()));
		}
		Long defaultCapacity = (shape.algorithm() == Algorithm.TOKEN_BUCKET) ? this.defaults.getCapacity() : null;
		long capacity = (shape.capacity() != null) ? shape.capacity()
				: (defaultCapacity != null) ? defaultCapacity : shape.limit();
		return new LimitDefinition(name, shape.algorithm(), shape.limit(), shape.window(), capacity, shape.calendar())
			.request(cost)
			.requireCostFits();
	}

	private void checkDefaults() {
		if (this.defaults.getMaxWait() == null || this.defaults.getMaxWait().isNegative()) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.defaults.max-wait",
					this.defaults.getMaxWait(), "A duration of at least 0 (0: a denied call never waits).");
		}
		try {
			definition("defaults", LimitShape.of(this.defaults), this.defaults.getCost());
		}
		catch (IllegalArgumentException ex) {
			throw LimitResolver.invalidProperty("ratelimit.defaults", this.defaults, ex);
		}
	}

}
