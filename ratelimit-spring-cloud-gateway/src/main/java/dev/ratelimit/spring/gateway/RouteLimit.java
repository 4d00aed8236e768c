package dev.ratelimit.spring.gateway;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.limits.LimitSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;

/**
 * The arguments of a route's rate limit, as a route's {@code RateLimited} filter gives them (in YAML, from the Java
 * DSL, or in a route definition posted to the gateway's endpoint): the values of a filter rule of
 * {@code ratelimit.filter.rules}, without paths, each falling back to {@code ratelimit.defaults} where unset. The
 * limit is named after the route's id unless {@link #setName named}; {@code ratelimit.plans} and the overrides of the
 * {@code ratelimits} endpoint apply to it by that name.
 *
 * <p>
 * A route's definition gives the arguments as text, which the gateway binds before the filter knows its route: a
 * filter's configuration bound by the gateway keeps them as they are ({@link #RouteLimit(Map)}), and they are read
 * once the route is known, so that an argument the filter does not know, or a value that is not of its type, stops
 * the route naming the route, the argument and the value.
 */
public class RouteLimit implements LimitSettings.Limit {

	/** The arguments of the shortcut form ({@code RateLimited=100, 1m, sliding-window-counter}), in order. */
	public static final List<String> SHORTCUT = List.of("limit", "window", "algorithm");

	/** The arguments of the {@code RateLimited} filter, as routes write them. */
	protected static final List<String> ARGUMENTS = List.of("name", "algorithm", "limit", "window", "period", "zone",
			"first-day-of-week", "capacity", "cost", "mode", "failure-policy", "usage", "key");

	/** The arguments as the gateway bound them, until {@link #readArguments read}; {@code null} once read or set in code. */
	private @Nullable Map<String, @Nullable Object> arguments;

	private @Nullable String name;

	private @Nullable Algorithm algorithm;

	private @Nullable Long limit;

	private @Nullable Duration window;

	private @Nullable Long capacity;

	private CalendarPeriod.@Nullable Unit period;

	private @Nullable ZoneId zone;

	private @Nullable DayOfWeek firstDayOfWeek;

	private @Nullable Long cost;

	private @Nullable LimitMode mode;

	private @Nullable FailurePolicy failurePolicy;

	private @Nullable String usage;

	private @Nullable String key;

	/** A limit whose values are set in code (the Java DSL). */
	public RouteLimit() {
	}

	/**
	 * A limit of the arguments of a route's definition, as the gateway binds them: read, and checked, by
	 * {@link #readArguments} once the route is known.
	 * @param arguments argument name, as the route writes it, to value (text, or what a {@code #{...}} argument
	 * evaluated to); names with dots as nested maps
	 */
	protected RouteLimit(@Nullable Map<String, @Nullable Object> arguments) {
		this.arguments = arguments;
	}

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

	/**
	 * Calendar period that a fixed window counts in, in place of {@code window}: {@code day}, {@code week},
	 * {@code month} or {@code year}, from midnight in {@link #getZone() zone}; a limit with a period and no algorithm
	 * is a fixed window.
	 */
	@Override
	public CalendarPeriod.@Nullable Unit getPeriod() {
		return this.period;
	}

	public RouteLimit setPeriod(CalendarPeriod.@Nullable Unit period) {
		this.period = period;
		return this;
	}

	/** Time zone of the period, an IANA id such as {@code Europe/Berlin}; UTC when unset. */
	@Override
	public @Nullable ZoneId getZone() {
		return this.zone;
	}

	public RouteLimit setZone(@Nullable ZoneId zone) {
		this.zone = zone;
		return this;
	}

	/** Day a week of the period starts on; Monday when unset. */
	@Override
	public @Nullable DayOfWeek getFirstDayOfWeek() {
		return this.firstDayOfWeek;
	}

	public RouteLimit setFirstDayOfWeek(@Nullable DayOfWeek firstDayOfWeek) {
		this.firstDayOfWeek = firstDayOfWeek;
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
	 * Whether and per which period the limit records the units each client used, as a filter rule's {@code usage}:
	 * {@code true} per the limit's calendar {@code period}, else per calendar month in UTC; or a calendar period such
	 * as {@code month in Europe/Berlin}; {@code false} or unset: none. The client keys are then kept in clear text.
	 */
	@Override
	public @Nullable String getUsage() {
		return this.usage;
	}

	public RouteLimit setUsage(@Nullable String usage) {
		this.usage = usage;
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

	/** The names of the arguments a route's definition may give the filter, as routes write them. */
	protected List<String> argumentNames() {
		return ARGUMENTS;
	}

	/** The property of this class that {@code argument}, one of {@link #argumentNames()}, sets. */
	protected String argumentProperty(String argument) {
		return argument;
	}

	/** Whether the filter's client key comes from code (a {@code KeyResolver}, a function) rather than {@code key}. */
	protected boolean resolvesKey() {
		return false;
	}

	/**
	 * Sets this limit's values from the arguments the gateway bound, once: later calls do nothing.
	 * @param routeId the route whose arguments they are
	 * @throws IllegalArgumentException naming the route, the filter, the argument and its value when the filter has
	 * no argument of that name, or the value is not of its type
	 */
	protected final synchronized void readArguments(String routeId) {
		Map<String, @Nullable Object> read = this.arguments;
		if (read != null) {
			RouteArguments.bind(this, read, RouteLimits.source(routeId, this));
			this.arguments = null;
		}
	}

	/**
	 * The client key's expression: {@link RouteKeys#RESOLVED} where the filter's code resolves it.
	 * @param source how messages name the limit
	 * @throws IllegalArgumentException naming {@code source} when the key is invalid, or given besides a resolver
	 */
	protected final @Nullable Expression keyExpression(String source) {
		if (resolvesKey()) {
			if (this.key != null) {
				throw new IllegalArgumentException("Invalid rate limit of " + source + ": it has both a key and a"
						+ " key resolver; give one");
			}
			return RouteKeys.RESOLVED;
		}
		try {
			return RouteKeys.parse(this.key);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid rate limit of " + source + " (key): " + ex.getMessage(), ex);
		}
	}

	/** What tells two limits of one route apart: equal values resolve to the same limit. */
	List<@Nullable Object> values() {
		return Arrays.asList(this.name, this.algorithm, this.limit, this.window, this.period, this.zone,
				this.firstDayOfWeek, this.capacity, this.cost, this.mode, this.failurePolicy, this.usage, this.key);
	}

}
