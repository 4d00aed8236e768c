package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.spring.HeaderStyle;
import dev.ratelimit.spring.MissingKeyPolicy;
import dev.ratelimit.spring.limits.LimitSettings;

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

	@NestedConfigurationProperty
	private final DefaultsProperties defaults = new DefaultsProperties();

	@NestedConfigurationProperty
	private final RateLimitRedisProperties redis = new RateLimitRedisProperties();

	@NestedConfigurationProperty
	private final FailLocalProperties failLocal = new FailLocalProperties();

	@NestedConfigurationProperty
	private final DenialsProperties denials = new DenialsProperties();

	@NestedConfigurationProperty
	private final FilterProperties filter = new FilterProperties();

	@NestedConfigurationProperty
	private final PlanProperties plan = new PlanProperties();

	@NestedConfigurationProperty
	private final MetricsProperties metrics = new MetricsProperties();

	@NestedConfigurationProperty
	private final UsageProperties usage = new UsageProperties();

	private final Overrides overrides = new Overrides();

	/**
	 * Limit shapes per plan: plan name, then limit name, then its algorithm, limit, window and capacity. A limit
	 * (annotation or filter rule) whose name appears here takes the shape of the client's plan (see ratelimit.plan.*);
	 * its cost, key, failure policy and mode stay its own.
	 */
	private Map<String, Map<String, PlanLimitProperties>> plans = new LinkedHashMap<>();

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

	public DefaultsProperties getDefaults() {
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

	public FilterProperties getFilter() {
		return this.filter;
	}

	public PlanProperties getPlan() {
		return this.plan;
	}

	public Map<String, Map<String, PlanLimitProperties>> getPlans() {
		return this.plans;
	}

	public MetricsProperties getMetrics() {
		return this.metrics;
	}

	public Overrides getOverrides() {
		return this.overrides;
	}

	@Override
	public UsageProperties getUsage() {
		return this.usage;
	}

	public void setPlans(Map<String, Map<String, PlanLimitProperties>> plans) {
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

	/** Where the limits are counted. */
	public enum Store {

		/** In Redis, shared by every instance. */
		REDIS,

		/** In this instance's memory alone ({@code dev.ratelimit.core.InMemoryRateLimiter}). */
		IN_MEMORY

	}

}
