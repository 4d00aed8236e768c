package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.spring.limits.LimitSettings;

/**
 * The shape of a limit that a filter rule or a plan sets: each value unset falls back to the limit's own, then
 * to ratelimit.defaults.
 */
public class LimitShapeProperties implements LimitSettings.Shape {

	/**
	 * Algorithm: 'fixed-window', 'sliding-log', 'sliding-window-counter' or 'token-bucket'.
	 */
	private Algorithm algorithm;

	/**
	 * Units allowed per window; for the token bucket, tokens added per window.
	 */
	private Long limit;

	/**
	 * Window of the limit, at least 1 ms.
	 */
	private Duration window;

	/**
	 * Token bucket size in tokens.
	 */
	private Long capacity;

	public Algorithm getAlgorithm() {
		return this.algorithm;
	}

	public void setAlgorithm(Algorithm algorithm) {
		this.algorithm = algorithm;
	}

	public Long getLimit() {
		return this.limit;
	}

	public void setLimit(Long limit) {
		this.limit = limit;
	}

	public Duration getWindow() {
		return this.window;
	}

	public void setWindow(Duration window) {
		this.window = window;
	}

	public Long getCapacity() {
		return this.capacity;
	}

	public void setCapacity(Long capacity) {
		this.capacity = capacity;
	}

}
