package dev.ratelimit.spring.limits;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.spring.FailurePolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The limit one instance applies alone while Redis fails, for fail-local limits: limit and capacity divided by
 * {@code ratelimit.fail-local.instances}, rounded down.
 */
final class FailLocalShareCalculator {

	/** {@code null} with the in-memory store, which never fails: then no limit has a local share. */
	private final @Nullable Integer instances;

	/**
	 * @throws InvalidConfigurationPropertyValueException when {@code instances} is below 1
	 */
	FailLocalShareCalculator(@Nullable Integer instances) {
		if (instances != null && instances < 1) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.fail-local.instances", instances,
					"At least 1: the number of instances that share a fail-local limit while Redis fails.");
		}
		this.instances = instances;
	}

	/**
	 * @return this instance's share of {@code request}'s limit, at its cost and mode; {@code null} unless the policy
	 * is fail-local
	 * @throws IllegalArgumentException when that share could never admit a request of the limit's cost
	 */
	@Nullable LimitRequest of(LimitRequest request, FailurePolicy failurePolicy) {
		if (failurePolicy != FailurePolicy.FAIL_LOCAL || this.instances == null) {
			return null;
		}
		LimitDefinition definition = request.definition();
		boolean bucket = definition.algorithm() == Algorithm.TOKEN_BUCKET;
		long limit = definition.limit() / this.instances;
		long capacity = bucket ? definition.capacity() / this.instances : limit;
		long bound = bucket ? capacity : limit;
		String share = "failure policy fail-local of rate limit '" + definition.name()
				+ "' with ratelimit.fail-local.instances=" + this.instances + " leaves each instance ";
		if (limit < 1) {
			throw new IllegalArgumentException(share + "a limit of " + definition.limit() + " / " + this.instances
					+ " = 0 per " + definition.window()
					+ " (rounded down), which admits nothing; raise the limit, or use fewer instances or another failure policy");
		}
		if (bound < request.cost()) {
			throw new IllegalArgumentException(share + (bucket ? "a capacity of " : "a limit of ") + bound
					+ ", which could never admit a request of cost " + request.cost()
					+ "; raise the limit, or use fewer instances or another failure policy");
		}
		return new LimitRequest(new LimitDefinition(definition.name(), definition.algorithm(), limit,
				definition.window(), capacity, definition.calendar()), request.cost(), request.shadow());
	}

}
