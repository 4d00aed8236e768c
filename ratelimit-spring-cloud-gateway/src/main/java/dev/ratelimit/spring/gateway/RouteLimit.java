package dev.ratelimit.spring.gateway;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.limits.LimitSettings;
import org.jspecify.annotations.Nullable;

/**
 * The arguments of a route's rate limit, as a route's {@code RateLimited} filter gives them (in YAML, from the Java
 * DSL, or in a route definition posted to the gateway's endpoint): the values of a filter rule of
 * {@code ratelimit.filter.rules}, without paths, each falling back to {@code ratelimit.defaults} where unset. The
 * limit is named after the route's id unless {@link #setName named}; {@code ratelimit.plans} and the overrides of the
 * {@code ratelimits} endpoint apply to it by that name.
 */
public class RouteLimit implements LimitSettings.Limit {

	private @Nullable String name;

	private @Nullable Algorithm algorithm;

	private @Nullable Long limit;

	private @Nullable Duration window;

	private @Nullable Long capacity;

	private @Nullable Long cost;

	private @Nullable LimitMode mode;

	private @Nullable FailurePolicy failurePolicy;

	private @Nullable String key;

	/** Name of the limit: its budget, plans and overrides; the route's id when unset. */
	@Override
	public @Nullable String getName() {
		return this.name;
	}

	public RouteLimit setName(@Nullable String name) {
		this.name = name;
		return this;
	}

	/** Algorithm: {@code fixed-window}, {@code sliding-log}, {@code sliding-window-counter}, {@code token-bucket} or {@code concurrency}. */
	@Override
	public @Nullable Algorithm getAlgorithm() {
		return this.algorithm;
	}

	public RouteLimit setAlgorithm(@Nullable Algorithm algorithm) {
		this.algorithm = algorithm;
		return this;
	}

	/** Units per window (for {@code concurrency}: calls in flight at once). */
	@Override
	public @Nullable Long getLimit() {
		return this.limit;
	}

	public RouteLimit setLimit(@Nullable Long limit) {
		this.limit = limit;
		return this;
	}

	/** Window, such as {@code 1s} or {@code 1m} (for {@code concurrency}: the lease time). */
	@Override
	public @Nullable Duration getWindow() {
		return this.window;
	}

	public RouteLimit setWindow(@Nullable Duration window) {
		this.window = window;
		return this;
	}

	/** Capacity of a token bucket: its largest burst. */
	@Override
	public @Nullable Long getCapacity() {
		return this.capacity;
	}

	public RouteLimit setCapacity(@Nullable Long capacity) {
		this.capacity = capacity;
		return this;
	}

	/** Units each request takes. */
	@Override
	public @Nullable Long getCost() {
		return this.cost;
	}

	public RouteLimit setCost(@Nullable Long cost) {
		this.cost = cost;
		return this;
	}

	/** {@code enforce}, or {@code shadow}: counted and reported, never refused. */
	@Override
	public @Nullable LimitMode getMode() {
		return this.mode;
	}

	public RouteLimit setMode(@Nullable LimitMode mode) {
		this.mode = mode;
		return this;
	}

	/** What happens when Redis cannot decide: {@code fail-open}, {@code fail-closed} or {@code fail-local}. */
	@Override
	public @Nullable FailurePolicy getFailurePolicy() {
		return this.failurePolicy;
	}

	public RouteLimit setFailurePolicy(@Nullable FailurePolicy failurePolicy) {
		this.failurePolicy = failurePolicy;
		return this;
	}

	/**
	 * Client key: an expression that reads the request only ({@link RouteKeys}), such as
	 * {@code #request.getHeader('X-Api-Key')}; the client's address when unset, or when the key is missing and
	 * {@code ratelimit.missing-key} is {@code client-ip}.
	 */
	public @Nullable String getKey() {
		return this.key;
	}

	public RouteLimit setKey(@Nullable String key) {
		this.key = key;
		return this;
	}

	/** The filter whose limit this is, as routes name it. */
	protected String filterName() {
		return "RateLimited";
	}

	/** Whether the filter gives a concurrency limit's lease back when the request ends. */
	protected boolean takesLeases() {
		return true;
	}

	/** What tells two limits of one route apart: equal values resolve to the same limit. */
	List<@Nullable Object> values() {
		return Arrays.asList(this.name, this.algorithm, this.limit, this.window, this.capacity, this.cost, this.mode,
				this.failurePolicy, this.key);
	}

}
