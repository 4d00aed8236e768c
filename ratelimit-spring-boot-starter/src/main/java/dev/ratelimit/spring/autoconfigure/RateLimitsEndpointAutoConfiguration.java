package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint;
import dev.ratelimit.spring.enforce.DenialCache;
import dev.ratelimit.spring.RateLimitReset;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.limits.OverridesSync;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link RateLimitsEndpoint}, in a web application with a limiter and Actuator, when the endpoint is available
 * (enabled and exposed).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnWebApplication
@ConditionalOnClass(name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
public final class RateLimitsEndpointAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnAvailableEndpoint(RateLimitsEndpoint.class)
	@ConditionalOnBean({ RateLimiter.class, LimitConfigurations.class, OverridesSync.class, DenialCache.class,
			RateLimitReset.class })
	static class Available {

		@Bean(StarterBeans.ENDPOINT)
		@ConditionalOnMissingBean(value = RateLimitsEndpoint.class, name = StarterBeans.ENDPOINT)
		RateLimitsEndpoint rateLimitsEndpoint(RateLimiter rateLimiter, LimitConfigurations configurations,
				OverridesSync overrides, RateLimitProperties properties, DenialCache denials, RateLimitReset reset) {
			String store = (properties.getStore() == RateLimitProperties.Store.IN_MEMORY) ? "in-memory" : "redis";
			return new RateLimitsEndpoint(rateLimiter, configurations, overrides, store, denials,
					properties.getMetrics().nearLimit(), reset);
		}

		/** A write with a field the endpoint does not take is refused (400), naming it, rather than half done. */
		@Bean(StarterBeans.ENDPOINT_FIELDS)
		@ConditionalOnMissingBean(name = StarterBeans.ENDPOINT_FIELDS)
		OperationInvokerAdvisor rateLimitsEndpointFields() {
			return RateLimitsEndpoint.unknownFields();
		}

	}

}
