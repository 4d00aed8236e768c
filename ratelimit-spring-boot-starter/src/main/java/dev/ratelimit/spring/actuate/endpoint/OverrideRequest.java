package dev.ratelimit.spring.actuate.endpoint;

import dev.ratelimit.spring.limits.LimitOverride;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /actuator/ratelimits/{name}}, each field {@code null} when not given, in
 * {@code application.yml}'s terms.
 *
 * @param plan the plan whose shape of the limit changes; with {@code client}, the plan the client must have
 * @param client the client whose shape of the limit changes: what the limit's key expression yields (an API key), or
 * a client key in the limiter's form ({@code key:<value>}, {@code ip:<address>})
 * @param undo {@code true} to remove the override, alone
 * @param name refused: the limit is the one the path names
 * @param key refused: keys are expressions, which the endpoint never takes
 * @param paths refused: rules come from the configuration
 * @param expression refused: expressions come from the configuration
 * @param usage refused: whether and per which period a limit records usage comes from the configuration
 */
record OverrideRequest(@Nullable String plan, @Nullable String client, @Nullable String algorithm,
		@Nullable Long limit, @Nullable String window, @Nullable Long capacity, @Nullable String period,
		@Nullable String zone, @Nullable String firstDayOfWeek, @Nullable String mode, @Nullable String failurePolicy,
		@Nullable Boolean undo, @Nullable String name, @Nullable String key, @Nullable String paths,
		@Nullable String expression, @Nullable String usage) {

	/**
	 * What the body sets.
	 * @throws IllegalArgumentException naming the value that is not valid
	 */
	LimitOverride override() {
		return LimitOverride.of(this.algorithm, this.limit, this.window, this.capacity, this.mode, this.failurePolicy)
			.withCalendar(this.period, this.zone, this.firstDayOfWeek);
	}

	boolean undoing() {
		return Boolean.TRUE.equals(this.undo);
	}

	/** The field that sets what only the limit itself takes (not a plan's or a client's shape), or {@code null}. */
	@Nullable String limitOnlyField() {
		return (this.mode != null) ? "mode" : (this.failurePolicy != null) ? "failurePolicy" : null;
	}

}
