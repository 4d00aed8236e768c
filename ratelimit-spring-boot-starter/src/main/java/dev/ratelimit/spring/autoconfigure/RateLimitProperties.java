package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.core.Algorithm;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration of the rate limiter, under {@code ratelimit}.
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties {

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

	private final Defaults defaults = new Defaults();

	private final Redis redis = new Redis();

	private final Filter filter = new Filter();

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

	public Defaults getDefaults() {
		return this.defaults;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Filter getFilter() {
		return this.filter;
	}

	/**
	 * {@code value} of {@code property}, checked when it is used: durations that must be positive (0 would mean
	 * "wait forever" to Jedis, or a zero Retry-After).
	 * @throws InvalidConfigurationPropertyValueException unless it is positive
	 */
	static Duration requirePositive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidConfigurationPropertyValueException(property, value,
					"The duration must be positive, such as 250ms.");
		}
		return value;
	}

	/**
	 * Values for attributes that an annotation or a filter rule leaves unset.
	 */
	public static class Defaults {

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
		private Long capacity;

		/**
		 * Units one request takes.
		 */
		private long cost = 1;

		/**
		 * What to do when Redis cannot answer in time: 'fail-open' lets the request through without rate-limit
		 * fields, 'fail-closed' answers 503 Service Unavailable.
		 */
		private FailurePolicy failurePolicy = FailurePolicy.FAIL_OPEN;

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

		public Long getCapacity() {
			return this.capacity;
		}

		public void setCapacity(Long capacity) {
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
	 * How the limiter uses the application's Redis connection (spring.data.redis.*).
	 */
	public static class Redis {

		/**
		 * Read timeout, connect timeout and connection-pool wait of the Jedis connection factory, so that a slow or
		 * absent Redis cannot stall request threads. Each applies only where the application sets none of its own
		 * ('spring.data.redis.timeout', 'spring.data.redis.connect-timeout', 'spring.data.redis.jedis.pool.max-wait').
		 */
		private Duration timeout = Duration.ofMillis(250);

		/**
		 * Retry-After of the 503 answered when Redis fails and the limit is 'fail-closed'.
		 */
		private Duration unavailableRetryAfter = Duration.ofSeconds(1);

		/**
		 * Minimum time between two WARN log lines about Redis failures; failures in between are counted only.
		 */
		private Duration failureLogInterval = Duration.ofSeconds(10);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public Duration getUnavailableRetryAfter() {
			return this.unavailableRetryAfter;
		}

		public void setUnavailableRetryAfter(Duration unavailableRetryAfter) {
			this.unavailableRetryAfter = unavailableRetryAfter;
		}

		public Duration getFailureLogInterval() {
			return this.failureLogInterval;
		}

		public void setFailureLogInterval(Duration failureLogInterval) {
			this.failureLogInterval = failureLogInterval;
		}

	}

	/**
	 * The servlet filter that applies rules by request path.
	 */
	public static class Filter {

		/**
		 * Whether the filter applying 'ratelimit.filter.rules' is registered.
		 */
		private boolean enabled = true;

		/**
		 * Order of the filter. The default runs after Spring Security's filter chain (-100), so key expressions can
		 * read the authenticated principal.
		 */
		private int order = 0;

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
	public static class Rule {

		/**
		 * Name of the limit, shown in the RateLimit-Policy header and part of the Redis key. Defaults to the first
		 * path pattern.
		 */
		private String name;

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

		/**
		 * Units one request takes.
		 */
		private Long cost;

		/**
		 * SpEL expression for the client key, with #request, #principal and bean references (@bean). Defaults to
		 * the client's IP address.
		 */
		private String key;

		/**
		 * What to do when Redis cannot answer in time: 'fail-open' or 'fail-closed'.
		 */
		private FailurePolicy failurePolicy;

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
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

		public Long getCost() {
			return this.cost;
		}

		public void setCost(Long cost) {
			this.cost = cost;
		}

		public String getKey() {
			return this.key;
		}

		public void setKey(String key) {
			this.key = key;
		}

		public FailurePolicy getFailurePolicy() {
			return this.failurePolicy;
		}

		public void setFailurePolicy(FailurePolicy failurePolicy) {
			this.failurePolicy = failurePolicy;
		}

	}

}
