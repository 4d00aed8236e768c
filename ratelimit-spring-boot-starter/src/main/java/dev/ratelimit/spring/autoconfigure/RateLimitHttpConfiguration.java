package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.web.RateLimitExceptionHandler;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What Spring MVC and WebFlux share, in a web application with a limiter: the exception handler that answers
 * denied requests (the rules are part of the limits' configuration, {@code RateLimitAutoConfiguration}). The enforcer comes from {@link RateLimitEnforcerConfiguration}; the stacks add their
 * filter and advisor ({@code servlet.RateLimitWebMvcConfiguration}, {@code reactive.RateLimitWebFluxConfiguration}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
@ConditionalOnBean(RateLimiter.class)
class RateLimitHttpConfiguration {

	@Bean(StarterBeans.EXCEPTION_HANDLER)
	@ConditionalOnMissingBean(value = RateLimitExceptionHandler.class, name = StarterBeans.EXCEPTION_HANDLER)
	RateLimitExceptionHandler rateLimitExceptionHandler() {
		return new RateLimitExceptionHandler();
	}

}
