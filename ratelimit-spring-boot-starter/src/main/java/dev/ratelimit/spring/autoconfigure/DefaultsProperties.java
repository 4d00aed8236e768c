package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.limits.LimitSettings;
import org.jspecify.annotations.Nullable;

/**
 * Values for attributes that an annotation or a filter rule leaves unset.
 */
public class DefaultsProperties implements LimitSettings.Defaults {

	/**
	 * Algorithm: 'fixed-window', 'sliding-log', 'sliding-window-counter' or 'token-bucket'.
	 */
	private Algorithm algorithm = Algorithm.TOKEN_BUCKET;

	/**
	 * Units allowed per window; for the token bucket, tokens added per window.
	 */
	private long limit = 100;

	/**
	 * Window of a limit, at least 1 ms.
	 */
	private Duration window = Duration.ofMinutes(1);

	/**
	 * Token bucket size in tokens. When unset, the bucket holds one window's worth: the limit.
	 */
	private @Nullable Long capacity;

	/**
	 * Units one request takes.
	 */
	private long cost = 1;

	/**
	 * What to do when Redis cannot answer in time: 'fail-open' lets the request through without rate-limit
	 * fields, 'fail-closed' answers 503 Service Unavailable, 'fail-local' decides the limit in this instance's
	 * memory (with its share of the limit, see ratelimit.fail-local.*) until Redis answers again.
	 */
	private FailurePolicy failurePolicy = FailurePolicy.FAIL_OPEN;

	/**
	 * 'enforce' answers a denial with 429; 'shadow' decides and counts every limit as if enforced but lets denied
	 * requests through (a dry run), with a rate-limited log line, the 'shadow-denied' metric outcome and no
	 * rate-limit header fields. As a default it puts every limit without a mode of its own in shadow mode.
	 */
	private LimitMode mode = LimitMode.ENFORCE;

	/**
	 * How long a denied call of a @RateLimited method made outside an HTTP request (a scheduled job, a listener,
	 * any other thread) waits for a permit before it throws RateLimitExceededException: it sleeps exactly the
	 * decision's retry-after and asks again. 0 never waits. Calls made while a request is handled wait only when
	 * their annotation sets maxWait.
	 */
	private Duration maxWait = Duration.ofSeconds(2);

	public Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

	public LimitMode getMode() {
		return this.mode;
	}

	public void setMode(LimitMode mode) {
		this.mode = mode;
	}

	public Algorithm getAlgorithm() {
		return this.algorithm;
	}

	public void setAlgorithm(Algorithm algorithm) {
		this.algorithm = algorithm;
	}

	public long getLimit() {
		return this.limit;
	}

	public void setLimit(long limit) {
		this.limit = limit;
	}

	public Duration getWindow() {
		return this.window;
	}

	public void setWindow(Duration window) {
		this.window = window;
	}

	public @Nullable Long getCapacity() {
		return this.capacity;
	}

	public void setCapacity(@Nullable Long capacity) {
		this.capacity = capacity;
	}

	public long getCost() {
		return this.cost;
	}

	public void setCost(long cost) {
		this.cost = cost;
	}

	public FailurePolicy getFailurePolicy() {
		return this.failurePolicy;
	}

	public void setFailurePolicy(FailurePolicy failurePolicy) {
		this.failurePolicy = failurePolicy;
	}

}
