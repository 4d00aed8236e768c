package dev.ratelimit.spring.limits;

import java.time.Duration;

import dev.ratelimit.core.Algorithm;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a limit before it has a name and a cost: what an annotation, a rule, a plan or the defaults set.
 *
 * @param algorithm how units are counted
 * @param limit units per window
 * @param window the window
 * @param capacity the token bucket's size, or {@code null} for the default ({@code ratelimit.defaults.capacity},
 * else the limit)
 */
record LimitShape(Algorithm algorithm, long limit, Duration window, @Nullable Long capacity) {

	static LimitShape of(LimitSettings.Defaults defaults) {
		return new LimitShape(defaults.getAlgorithm(), defaults.getLimit(), defaults.getWindow(),
				defaults.getCapacity());
	}

	/** This shape with another window. */
	LimitShape withWindow(Duration window) {
		return new LimitShape(this.algorithm, this.limit, window, this.capacity);
	}

	/**
	 * This shape with what {@code shape} sets: its algorithm, limit and window where set; its capacity always (a
	 * capacity belongs to the bucket that sets it, so a plan that leaves it unset gets the default, not the limit's).
	 */
	LimitShape with(LimitSettings.Shape shape) {
		return new LimitShape((shape.getAlgorithm() != null) ? shape.getAlgorithm() : this.algorithm,
				(shape.getLimit() != null) ? shape.getLimit() : this.limit,
				(shape.getWindow() != null) ? shape.getWindow() : this.window, shape.getCapacity());
	}

}
