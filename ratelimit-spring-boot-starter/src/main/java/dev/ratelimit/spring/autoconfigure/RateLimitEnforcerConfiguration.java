package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.time.InstantSource;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.core.redis.Timeouts;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.DecisionObservations;
import dev.ratelimit.spring.enforce.LeaseWaits;
import dev.ratelimit.spring.enforce.LocalFallback;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.RateLimitEventRecorder;
import dev.ratelimit.spring.enforce.RateLimitHeaderWriter;
import dev.ratelimit.spring.RateLimitReset;
import dev.ratelimit.spring.enforce.StateReset;
import dev.ratelimit.spring.enforce.RateLimitResponder;
import dev.ratelimit.spring.enforce.RedisCaller;
import dev.ratelimit.spring.enforce.DenialCache;
import dev.ratelimit.spring.enforce.DecisionApplier;
import dev.ratelimit.spring.enforce.ShadowDenialLogger;
import dev.ratelimit.spring.enforce.ThreadTimeoutScheduler;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.limits.OverrideStore;
import dev.ratelimit.spring.limits.OverridesSync;
import dev.ratelimit.spring.observation.RateLimitObservationConvention;
import dev.ratelimit.spring.redis.RedisOverrideStore;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.web.ErrorResponseException;

/**
 * The enforcer that decides requests and calls of {@code @RateLimited} methods, in any application with a limiter
 * (web or not: calls outside HTTP requests are limited too), and the waits for a permit. Its answers are
 * {@code ErrorResponseException}s, so it needs spring-web on the class path.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(ErrorResponseException.class)
@ConditionalOnBean(RateLimiter.class)
class RateLimitEnforcerConfiguration {

	@Bean(StarterBeans.ENFORCER)
	@ConditionalOnMissingBean(value = RateLimitEnforcer.class, name = StarterBeans.ENFORCER)
	RateLimitEnforcer rateLimitEnforcer(RateLimiter rateLimiter, RateLimitProperties properties,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<RateLimitEventRecorder> events,
			ObjectProvider<Timeouts> timeouts, ObjectProvider<ScriptExecutor> executor, DenialCache denials,
			LimitConfigurations configurations, ObjectProvider<ObservationRegistry> observations,
			ObjectProvider<RateLimitObservationConvention> convention,
			@Qualifier(StarterBeans.CLOCK) ObjectProvider<InstantSource> clock) {
		RateLimitResponder responses = new RateLimitResponder(new RateLimitHeaderWriter(properties.getHeaderStyle()),
				RateLimitProperties.requirePositive("ratelimit.redis.unavailable-retry-after",
						properties.getRedis().getUnavailableRetryAfter()));
		// checked at startup even where nothing reads it (no meters, no endpoint), as every other property is
		properties.getMetrics().nearLimit();
		RateLimitEventRecorder rateLimitEvents = events.getIfAvailable(() -> new RateLimitEventRecorder(logInterval(properties)));
		configurations.addListener(rateLimitEvents);
		LocalFallback fallback = new LocalFallback(RateLimitProperties.requirePositive(
				"ratelimit.fail-local.probe-interval", properties.getFailLocal().getProbeInterval()),
				clock.getIfAvailable(InstantSource::system));
		DecisionObservations decisionObservations = observations(observations.getIfAvailable(),
				convention.getIfAvailable());
		RedisCaller redis = new RedisCaller(rateLimiter,
				RateLimitProperties.requirePositive("ratelimit.redis.timeout", properties.getRedis().getTimeout()),
				deadlines(executor.getIfAvailable(), timeouts), rateLimitEvents, fallback, decisionObservations);
		DecisionApplier answers = new DecisionApplier(responses, rateLimitEvents,
				new ShadowDenialLogger(logInterval(properties)), fallback);
		return new RateLimitEnforcer(redis, answers,
				new ClientKeyResolver(beanFactory, properties.getMissingKey(), responses), denials, decisionObservations);
	}

	/**
	 * Denials answered without Redis while they stand ({@code ratelimit.denials.*}); all forgotten when the limits
	 * change, since they were decided under the old shapes.
	 */
	@Bean(StarterBeans.REMEMBERED_DENIALS)
	@ConditionalOnMissingBean(value = DenialCache.class, name = StarterBeans.REMEMBERED_DENIALS)
	DenialCache rateLimitRememberedDenials(RateLimitProperties properties, LimitConfigurations configurations,
			@Qualifier(StarterBeans.CLOCK) ObjectProvider<InstantSource> clock) {
		DenialsProperties denials = properties.getDenials();
		if (denials.getMaxClients() < 1) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.denials.max-clients",
					denials.getMaxClients(), "At least 1; set ratelimit.denials.remember=false to remember none.");
		}
		DenialCache cache = new DenialCache(denials.isRemember(),
				RateLimitProperties.requirePositive("ratelimit.denials.max-age", denials.getMaxAge()),
				denials.getMaxClients(), LimiterClock.nanoTime(clock.getIfAvailable()));
		configurations.addListener((source, previous, next) -> cache.forgetAll());
		return cache;
	}

	/** Every limit that a plan names exists: checked once the annotations' limits are known too. */
	@Bean(StarterBeans.PLANS_CHECK)
	@ConditionalOnMissingBean(name = StarterBeans.PLANS_CHECK)
	ApplicationListener<ContextRefreshedEvent> rateLimitPlansCheck(LimitConfigurations configurations) {
		return (event) -> configurations.current().requireKnownLimits();
	}

	/**
	 * The overrides set through the ratelimits endpoint: in Redis through the limiter's own client, read by every
	 * instance; in memory with the in-memory store.
	 */
	@Bean(StarterBeans.OVERRIDES)
	@ConditionalOnMissingBean(value = OverridesSync.class, name = StarterBeans.OVERRIDES)
	OverridesSync rateLimitOverrides(LimitConfigurations configurations, RateLimitProperties properties,
			ObjectProvider<ScriptExecutor> executor) {
		ScriptExecutor redis = executor.getIfAvailable();
		OverrideStore store = (redis != null && properties.getStore() == RateLimitProperties.Store.REDIS)
				? new RedisOverrideStore(redis, properties.getKeyPrefix(),
						RateLimitProperties.requirePositive("ratelimit.redis.timeout", properties.getRedis().getTimeout())
							.multipliedBy(4))
				: OverrideStore.inMemory();
		return new OverridesSync(store, configurations, RateLimitProperties
			.requirePositive("ratelimit.overrides.poll-interval", properties.getOverrides().getPollInterval()));
	}

	/**
	 * Waits for a permit, up to {@code ratelimit.defaults.max-wait} outside requests; for a lease, woken by the
	 * releases the limiter announces (its store's {@link LeaseWaits}), or without them after the concurrency hint.
	 */
	@Bean(StarterBeans.PERMIT_WAITS)
	@ConditionalOnMissingBean(value = PermitWaiter.class, name = StarterBeans.PERMIT_WAITS)
	PermitWaiter rateLimitPermitWaits(RateLimitEnforcer enforcer, RateLimitProperties properties,
			ObjectProvider<LeaseWaits> leaseWaits, @Qualifier(StarterBeans.CLOCK) ObjectProvider<InstantSource> clock) {
		return new PermitWaiter(enforcer, properties.getDefaults().getMaxWait(),
				leaseWaits.getIfAvailable(() -> new LeaseWaits(null)), LimiterClock.nanoTime(clock.getIfAvailable()));
	}

	/** Every client's state reset at once: for tests, and the endpoint's {@code DELETE /actuator/ratelimits}. */
	@Bean(StarterBeans.RESET)
	@ConditionalOnMissingBean(value = RateLimitReset.class, name = StarterBeans.RESET)
	RateLimitReset rateLimitReset(RateLimiter rateLimiter, PermitWaiter waits) {
		return new StateReset(rateLimiter, waits);
	}

	/**
	 * Where the requests' deadlines are judged: by the Redis client that reads the replies when it can (Lettuce's
	 * I/O thread, so that a busy application is not taken for a slow Redis), else by the web stack's timer.
	 */
	private static Timeouts deadlines(@Nullable ScriptExecutor executor, ObjectProvider<Timeouts> timeouts) {
		return (executor instanceof Timeouts.Judged client) ? client.deadlines()
				: timeouts.getIfAvailable(ThreadTimeoutScheduler::new);
	}

	/**
	 * The decisions' observations with the application's registry, none without one: then not even the parent of a
	 * decision is looked up.
	 */
	private static DecisionObservations observations(@Nullable ObservationRegistry registry,
			@Nullable RateLimitObservationConvention convention) {
		return (registry != null) ? new DecisionObservations(registry, convention) : DecisionObservations.NONE;
	}

	static Duration logInterval(RateLimitProperties properties) {
		return RateLimitProperties.requirePositive("ratelimit.redis.failure-log-interval",
				properties.getRedis().getFailureLogInterval());
	}

}
