package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * {@code ratelimit.store=redis} (the default) in an application without Spring Data Redis: startup stops saying what
 * to add, rather than leaving the application unlimited. An application's own {@link RateLimiter} bean is used as
 * it is.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(StoreCondition.OnRedis.class)
@ConditionalOnMissingClass(RateLimitRedisConfiguration.CONNECTION_DETAILS)
class NoRedisConfiguration {

	@Bean(StarterBeans.RATE_LIMITER)
	@ConditionalOnMissingBean(value = RateLimiter.class, name = StarterBeans.RATE_LIMITER)
	RateLimiter rateLimitRateLimiter() {
		throw new IllegalStateException("ratelimit.store=redis (the default) needs Spring Data Redis: add "
				+ "org.springframework.boot:spring-boot-starter-data-redis (or spring-boot-starter-data-redis-reactive) "
				+ "to the application, or set ratelimit.store=in-memory to count the limits in this instance's memory");
	}

}
