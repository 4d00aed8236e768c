package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.limits.LimitRegistry;
import dev.ratelimit.spring.limits.LimitResolver;
import dev.ratelimit.spring.web.FilterRuleMatcher;
import dev.ratelimit.spring.web.RateLimitExceptionHandler;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What Spring MVC and WebFlux share, in a web application with a limiter: the rules and the exception handler that
 * answers denied requests. The enforcer comes from {@link RateLimitEnforcerConfiguration}; the stacks add their
 * filter and advisor ({@code servlet.RateLimitWebMvcConfiguration}, {@code reactive.RateLimitWebFluxConfiguration}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
@ConditionalOnBean(RateLimiter.class)
class RateLimitHttpConfiguration {

	/** The rules, checked at startup; none when {@code ratelimit.filter.enabled=false}. */
	@Bean
	@ConditionalOnMissingBean
	FilterRuleMatcher rateLimitFilterRules(RateLimitProperties properties, LimitResolver factory, LimitRegistry names) {
		return properties.getFilter().isEnabled() ? FilterRuleMatcher.of(properties.getFilter().getRules(), factory, names) : FilterRuleMatcher.none();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitExceptionHandler rateLimitExceptionHandler() {
		return new RateLimitExceptionHandler();
	}

}
