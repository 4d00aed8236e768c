package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.enforce.MeteredEventRecorder;
import dev.ratelimit.spring.enforce.NearLimit;
import dev.ratelimit.spring.enforce.RateLimitEventRecorder;
import dev.ratelimit.spring.limits.LimitConfigurations;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.web.ErrorResponseException;

/**
 * The limiter's meters ({@code ratelimit.*} in Micrometer), when Micrometer is on the class path: the decisions,
 * the Redis calls and their failures. Without a {@link MeterRegistry} bean the failures are still logged.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnClass({ MeterRegistry.class, ErrorResponseException.class })
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitMetricsAutoConfiguration {

	@Bean(StarterBeans.EVENTS)
	@ConditionalOnMissingBean(value = RateLimitEventRecorder.class, name = StarterBeans.EVENTS)
	RateLimitEventRecorder rateLimitEvents(RateLimitProperties properties, ObjectProvider<MeterRegistry> registry) {
		MeterRegistry meterRegistry = registry.getIfAvailable();
		Duration logInterval = RateLimitEnforcerConfiguration.logInterval(properties);
		NearLimit nearLimit = properties.getMetrics().nearLimit();
		return (meterRegistry != null) ? new MeteredEventRecorder(logInterval, meterRegistry,
				properties.getStore() == RateLimitProperties.Store.REDIS, nearLimit) : new RateLimitEventRecorder(logInterval);
	}

	/**
	 * Creates every limit's meters once the context is refreshed: the annotations' limits are known when every
	 * singleton is instantiated ({@code RateLimitedMethodRegistry}).
	 */
	@Bean(StarterBeans.METERS_AT_STARTUP)
	@ConditionalOnMissingBean(name = StarterBeans.METERS_AT_STARTUP)
	ApplicationListener<ContextRefreshedEvent> rateLimitMetersAtStartup(RateLimitEventRecorder events,
			LimitConfigurations configurations) {
		return (event) -> events.register(configurations.current().names().names());
	}

}
