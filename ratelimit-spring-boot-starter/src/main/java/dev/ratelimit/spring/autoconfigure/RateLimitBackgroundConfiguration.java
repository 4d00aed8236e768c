package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.aop.BackgroundCallLimiter;
import dev.ratelimit.spring.aop.CallLimiter;
import dev.ratelimit.spring.enforce.PermitWaiter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnNotWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.ErrorResponseException;

/**
 * {@code @RateLimited} in an application that is not a web application (a batch job, a message consumer): every
 * call is outside an HTTP request ({@link BackgroundCallLimiter}). Web applications get theirs from their stack's
 * configuration, which decides calls outside requests the same way.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnNotWebApplication
@ConditionalOnClass(ErrorResponseException.class)
@ConditionalOnBean(RateLimiter.class)
class RateLimitBackgroundConfiguration {

	/** Every call is outside an HTTP request. */
	@Bean(StarterBeans.CALL_LIMITER)
	@ConditionalOnMissingBean(value = CallLimiter.class, name = StarterBeans.CALL_LIMITER)
	CallLimiter rateLimitCallLimiter(ObjectProvider<PermitWaiter> waits) {
		return new BackgroundCallLimiter(waits);
	}

}
