package dev.ratelimit.spring.autoconfigure;

import java.time.InstantSource;

import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.enforce.LeaseWaits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
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

	private static final Log logger = LogFactory.getLog(RateLimitInMemoryConfiguration.class);

	@Bean(StarterBeans.RATE_LIMITER)
	@ConditionalOnMissingBean(value = RateLimiter.class, name = StarterBeans.RATE_LIMITER)
	RateLimiter rateLimitRateLimiter(@Qualifier(StarterBeans.CLOCK) ObjectProvider<InstantSource> clock) {
		logger.info("Rate limits are counted in this instance's memory (ratelimit.store=in-memory): they are not "
				+ "shared with other instances, and a restart forgets them");
		InstantSource limitsClock = clock.getIfAvailable();
		return (limitsClock != null) ? new InMemoryRateLimiter(limitsClock) : new InMemoryRateLimiter();
	}

	/** Callers waiting for a lease, woken by the in-memory limiter's releases. */
	@Bean(StarterBeans.LEASE_WAITS)
	@ConditionalOnMissingBean(value = LeaseWaits.class, name = StarterBeans.LEASE_WAITS)
	LeaseWaits rateLimitLeaseWaits(RateLimiter rateLimiter) {
		return new LeaseWaits((rateLimiter instanceof InMemoryRateLimiter memory) ? memory.releases() : null);
	}

}
