package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.HeaderStyle;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.MissingKeyPolicy;
import dev.ratelimit.spring.limits.LimitSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration of the rate limiter, under {@code ratelimit}. Bound strictly: a key under {@code ratelimit.} that
 * names no property (a typo such as {@code ratelimit.filter.rules[0].limt}) stops startup naming it, rather than
 * leaving the default in force unnoticed.
 */
@ConfigurationProperties(prefix = "ratelimit", ignoreUnknownFields = false)
public class RateLimitProperties implements LimitSettings {

	/**
	 * Whether rate limiting is enabled.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key the limiter writes. Must not contain braces: the client's hash tag follows it.
	 */
	private String keyPrefix = "rl:";

	/**
	 * Rate-limit header fields on limited responses: 'ietf' (RateLimit and RateLimit-Policy, IETF
	 * draft-ietf-httpapi-ratelimit-headers-10), 'legacy' (RateLimit-Limit, -Remaining, -Reset), 'x-ratelimit'
	 * (X-RateLimit-Limit, -Remaining, -Reset) or 'none'. Retry-After is sent on every 429 whatever the style.
	 */
	private HeaderStyle headerStyle = HeaderStyle.IETF;

	/**
	 * What to do when a key expression yields null or an empty string: 'client-ip' uses the client's IP address,
	 * 'reject' answers 400 Bad Request.
	 */
	private MissingKeyPolicy missingKey = MissingKeyPolicy.CLIENT_IP;

	/**
	 * Where the limits are counted: 'redis' (shared by every instance of the application) or 'in-memory' (in this
	 * instance's memory alone, for development, tests and single-instance applications; no Redis is needed).
	 */
	private Store store = Store.REDIS;

	private final Defaults defaults = new Defaults();

	@NestedConfigurationProperty
	private final RateLimitRedisProperties redis = new RateLimitRedisProperties();

	@NestedConfigurationProperty
	private final FailLocalProperties failLocal = new FailLocalProperties();

	@NestedConfigurationProperty
	private final DenialsProperties denials = new DenialsProperties();

	private final Filter filter = new Filter();

	private final Plan plan = new Plan();

	private final Overrides overrides = new Overrides();

	/**
	 * Limit shapes per plan: plan name, then limit name, then its algorithm, limit, window and capacity. A limit
	 * (annotation or filter rule) whose name appears here takes the shape of the client's plan (see ratelimit.plan.*);
	 * its cost, key, failure policy and mode stay its own.
	 */
	private Map<String, Map<String, PlanLimit>> plans = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public HeaderStyle getHeaderStyle() {
		return this.headerStyle;
	}

	public void setHeaderStyle(HeaderStyle headerStyle) {
		this.headerStyle = headerStyle;
	}

	public MissingKeyPolicy getMissingKey() {
		return this.missingKey;
	}

	public void setMissingKey(MissingKeyPolicy missingKey) {
		this.missingKey = missingKey;
	}

	public Store getStore() {
		return this.store;
	}

	public void setStore(Store store) {
		this.store = store;
	}

	public Defaults getDefaults() {
		return this.defaults;
	}

	public FailLocalProperties getFailLocal() {
		return this.failLocal;
	}

	public DenialsProperties getDenials() {
		return this.denials;
	}

	public RateLimitRedisProperties getRedis() {
		return this.redis;
	}

	public Filter getFilter() {
		return this.filter;
	}

	public Plan getPlan() {
		return this.plan;
	}

	public Map<String, Map<String, PlanLimit>> getPlans() {
		return this.plans;
	}

	public Overrides getOverrides() {
		return this.overrides;
	}

	public void setPlans(Map<String, Map<String, PlanLimit>> plans) {
		this.plans = plans;
	}

	/**
	 * {@code value} of {@code property}, checked when it is used: durations that must be positive (0 would mean
	 * "wait forever" to a Redis client, or a zero Retry-After).
	 * @throws InvalidConfigurationPropertyValueException unless it is positive
	 */
	public static Duration requirePositive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidConfigurationPropertyValueException(property, value,
					"The duration must be positive, such as 250ms.");
		}
		return value;
	}

	/** The overrides set through the ratelimits endpoint, kept in Redis (in memory with the in-memory store). */
	public static class Overrides {

		/**
		 * How often each instance reads the overrides from Redis: an override set on one instance is in force on
		 * every other within this time.
		 */
		private Duration pollInterval = Duration.ofSeconds(2);

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

	}

	/**
	 * Values for attributes that an annotation or a filter rule leaves unset.
	 */
	public static class Defaults implements LimitSettings.Defaults {

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

	/**
	 * The filter that applies rules by request path: a servlet filter on Spring MVC, a WebFilter on WebFlux.
	 */
	public static class Filter {

		/**
		 * Whether 'ratelimit.filter.rules' are applied. On Spring MVC, false removes the filter and @RateLimited
		 * is decided when the method is called; on WebFlux the WebFilter stays, for @RateLimited handlers.
		 */
		private boolean enabled = true;

		/**
		 * Order of the filter. The default runs after Spring Security's filter chain (-100), so key expressions can
		 * read the authenticated principal.
		 */
		private int order = 0;

		/**
		 * Order of the filter of the rules with charge-on-status. The default runs before Spring Security's filter
		 * chain (-100), so that the 401 and 403 answers of Spring Security are counted.
		 */
		private int chargeOnStatusOrder = -110;

		/**
		 * Limits applied by request path, each to every request it matches.
		 */
		private List<Rule> rules = new ArrayList<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

		public int getChargeOnStatusOrder() {
			return this.chargeOnStatusOrder;
		}

		public void setChargeOnStatusOrder(int chargeOnStatusOrder) {
			this.chargeOnStatusOrder = chargeOnStatusOrder;
		}

		public List<Rule> getRules() {
			return this.rules;
		}

		public void setRules(List<Rule> rules) {
			this.rules = rules;
		}

	}

	/**
	 * One filter rule. Unset attributes take the values under 'ratelimit.defaults'.
	 */
	public static class Rule extends LimitShapeProperties implements LimitSettings.Rule {

		/**
		 * Name of the limit, shown in the RateLimit-Policy header and part of the Redis key. Defaults to the first
		 * path pattern.
		 */
		private @Nullable String name;

		/**
		 * Path patterns in Spring's PathPattern syntax, such as '/api/**', matched against the path within the
		 * application.
		 */
		private List<String> paths = new ArrayList<>();

		/**
		 * HTTP methods the rule applies to, such as 'POST'. Empty means every method.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * Units one request takes.
		 */
		private @Nullable Long cost;

		/**
		 * SpEL expression for the client key, with #request, #principal and bean references (@bean). Defaults to
		 * the client's IP address.
		 */
		private @Nullable String key;

		/**
		 * What to do when Redis cannot answer in time: 'fail-open', 'fail-closed' or 'fail-local'.
		 */
		private @Nullable FailurePolicy failurePolicy;

		/**
		 * 'enforce' or 'shadow' (decided and counted, never refusing). Defaults to ratelimit.defaults.mode.
		 */
		private @Nullable LimitMode mode;

		/**
		 * HTTP statuses whose responses are charged, such as [401] to count failed logins only: a request is then
		 * admitted while the limit has room (read without consuming) and charged once its response status is known.
		 * Such rules run in a filter of their own before Spring Security, so their key cannot read #principal. Empty
		 * means every request is charged on arrival.
		 */
		private List<Integer> chargeOnStatus = new ArrayList<>();

		/**
		 * With charge-on-status: reserve the cost on arrival and give it back when the response status does not
		 * charge, so that requests in flight at once never exceed the limit (exact). A request that does not count
		 * then holds its unit until it is answered.
		 */
		private boolean reserve;

		/**
		 * Response header that the application sets to the request's real cost (a whole number of at least 0), such
		 * as 'X-Tokens-Used': the request is admitted with 'cost' as a provisional cost and settled by the header's
		 * value once it is answered; the header is removed from the response. Such rules run before Spring Security,
		 * with charge-on-status rules, so their key cannot read #principal.
		 */
		private @Nullable String settleCostHeader;

		public @Nullable String getSettleCostHeader() {
			return this.settleCostHeader;
		}

		public void setSettleCostHeader(@Nullable String settleCostHeader) {
			this.settleCostHeader = settleCostHeader;
		}

		public boolean isReserve() {
			return this.reserve;
		}

		public void setReserve(boolean reserve) {
			this.reserve = reserve;
		}

		public List<Integer> getChargeOnStatus() {
			return this.chargeOnStatus;
		}

		public void setChargeOnStatus(List<Integer> chargeOnStatus) {
			this.chargeOnStatus = chargeOnStatus;
		}

		public @Nullable LimitMode getMode() {
			return this.mode;
		}

		public void setMode(@Nullable LimitMode mode) {
			this.mode = mode;
		}

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public List<String> getPaths() {
			return this.paths;
		}

		public void setPaths(List<String> paths) {
			this.paths = paths;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public @Nullable Long getCost() {
			return this.cost;
		}

		public void setCost(@Nullable Long cost) {
			this.cost = cost;
		}

		public @Nullable String getKey() {
			return this.key;
		}

		public void setKey(@Nullable String key) {
			this.key = key;
		}

		public @Nullable FailurePolicy getFailurePolicy() {
			return this.failurePolicy;
		}

		public void setFailurePolicy(@Nullable FailurePolicy failurePolicy) {
			this.failurePolicy = failurePolicy;
		}

	}

	/**
	 * How a request's plan is chosen, for limits whose shape depends on the plan (ratelimit.plans).
	 */
	public static class Plan implements LimitSettings.Plan {

		/**
		 * SpEL expression that yields the request's plan name, with #request, #principal, #exchange (WebFlux), bean
		 * references (@bean) and, on annotated methods, the arguments by name; for example
		 * "@apiKeys.planOf(#request.getHeader('X-Api-Key'))". Null, empty, failing or naming no configured plan means
		 * the default plan. When unset, every request has the default plan.
		 */
		private @Nullable String expression;

		/**
		 * The plan of requests whose plan is unknown; must be one of ratelimit.plans. Defaults to the first plan
		 * configured.
		 */
		private @Nullable String defaultPlan;

		public @Nullable String getExpression() {
			return this.expression;
		}

		public void setExpression(@Nullable String expression) {
			this.expression = expression;
		}

		public @Nullable String getDefaultPlan() {
			return this.defaultPlan;
		}

		public void setDefaultPlan(@Nullable String defaultPlan) {
			this.defaultPlan = defaultPlan;
		}

	}

	/**
	 * The shape of one limit in one plan. Unset values are the limit's own (from its annotation or rule, then
	 * ratelimit.defaults).
	 */
	public static class PlanLimit extends LimitShapeProperties {

	}

	/** Where the limits are counted. */
	public enum Store {

		/** In Redis, shared by every instance. */
		REDIS,

		/** In this instance's memory alone ({@code dev.ratelimit.core.InMemoryRateLimiter}). */
		IN_MEMORY

	}

}
