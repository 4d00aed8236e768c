package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.RateLimiter;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * {@code ratelimit.store=in-memory}: the limits are counted in this instance's memory alone, and no Redis is needed
 * or contacted. Only when chosen: a missing Redis never makes the starter fall back to it silently.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(StoreCondition.OnInMemory.class)
class RateLimitInMemoryConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimiter rateLimiter() {
		return new InMemoryRateLimiter();
	}

}
