package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.core.redis.Timeouts;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.LocalFallback;
import dev.ratelimit.spring.enforce.PermitWaits;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.RateLimitEvents;
import dev.ratelimit.spring.enforce.RateLimitHeaders;
import dev.ratelimit.spring.enforce.RateLimitResponses;
import dev.ratelimit.spring.enforce.RedisCalls;
import dev.ratelimit.spring.enforce.RememberedDenials;
import dev.ratelimit.spring.enforce.RequestAnswers;
import dev.ratelimit.spring.enforce.ShadowDenials;
import dev.ratelimit.spring.enforce.ThreadTimeouts;
import dev.ratelimit.spring.limits.LimitRegistry;
import dev.ratelimit.spring.limits.LimitResolver;

import org.springframework.beans.factory.ObjectProvider;
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

	@Bean
	@ConditionalOnMissingBean
	LimitRegistry rateLimitNames() {
		return new LimitRegistry();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitEnforcer rateLimitEnforcer(RateLimiter rateLimiter, RateLimitProperties properties,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<RateLimitEvents> events,
			ObjectProvider<Timeouts> timeouts, ObjectProvider<ScriptExecutor> executor, LimitResolver factory,
			RememberedDenials denials) {
		RateLimitResponses responses = new RateLimitResponses(new RateLimitHeaders(properties.getHeaderStyle()),
				RateLimitProperties.requirePositive("ratelimit.redis.unavailable-retry-after",
						properties.getRedis().getUnavailableRetryAfter()));
		RateLimitEvents rateLimitEvents = events.getIfAvailable(() -> new RateLimitEvents(logInterval(properties)));
		LocalFallback fallback = new LocalFallback(RateLimitProperties.requirePositive(
				"ratelimit.fail-local.probe-interval", properties.getFailLocal().getProbeInterval()));
		RedisCalls redis = new RedisCalls(rateLimiter,
				RateLimitProperties.requirePositive("ratelimit.redis.timeout", properties.getRedis().getTimeout()),
				deadlines(executor.getIfAvailable(), timeouts), rateLimitEvents, fallback);
		RequestAnswers answers = new RequestAnswers(responses, rateLimitEvents,
				new ShadowDenials(logInterval(properties)), fallback);
		return new RateLimitEnforcer(redis, answers,
				new ClientKeyResolver(beanFactory, properties.getMissingKey(), responses), factory.plans(), denials);
	}

	/** Denials answered without Redis while they stand ({@code ratelimit.denials.*}). */
	@Bean
	@ConditionalOnMissingBean
	RememberedDenials rateLimitRememberedDenials(RateLimitProperties properties) {
		DenialsProperties denials = properties.getDenials();
		if (denials.getMaxClients() < 1) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.denials.max-clients",
					denials.getMaxClients(), "At least 1; set ratelimit.denials.remember=false to remember none.");
		}
		return new RememberedDenials(denials.isRemember(),
				RateLimitProperties.requirePositive("ratelimit.denials.max-age", denials.getMaxAge()),
				denials.getMaxClients(), System::nanoTime);
	}

	/** Every limit that a plan names exists: checked once the annotations' limits are known too. */
	@Bean
	ApplicationListener<ContextRefreshedEvent> rateLimitPlansCheck(LimitResolver factory, LimitRegistry names) {
		return (event) -> factory.plans().requireKnownLimits(names.names());
	}

	/** Waits for a permit, up to {@code ratelimit.defaults.max-wait} outside requests. */
	@Bean
	@ConditionalOnMissingBean
	PermitWaits rateLimitPermitWaits(RateLimitEnforcer enforcer, RateLimitProperties properties) {
		return new PermitWaits(enforcer, properties.getDefaults().getMaxWait());
	}

	/**
	 * Where the requests' deadlines are judged: by the Redis client that reads the replies when it can (Lettuce's
	 * I/O thread, so that a busy application is not taken for a slow Redis), else by the web stack's timer.
	 */
	private static Timeouts deadlines(ScriptExecutor executor, ObjectProvider<Timeouts> timeouts) {
		return (executor instanceof Timeouts.Judged client) ? client.deadlines()
				: timeouts.getIfAvailable(ThreadTimeouts::new);
	}

	static Duration logInterval(RateLimitProperties properties) {
		return RateLimitProperties.requirePositive("ratelimit.redis.failure-log-interval",
				properties.getRedis().getFailureLogInterval());
	}

}
