package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.aop.CallLimiter;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.web.servlet.ChargeOnStatusFilter;
import dev.ratelimit.spring.web.servlet.HandlerLimitLookup;
import dev.ratelimit.spring.web.servlet.RateLimitFilter;
import dev.ratelimit.spring.web.servlet.ServletCallLimiter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.HandlerMapping;

/**
 * The Spring MVC side, in a servlet application with a limiter: the filter, the advisor that applies
 * {@code @RateLimited} (to calls outside requests too), and the startup checks of the annotations.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(HandlerExceptionResolver.class)
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitWebMvcAutoConfiguration {

	@Bean(StarterBeans.FILTER)
	@ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean(name = StarterBeans.FILTER)
	FilterRegistrationBean<RateLimitFilter> rateLimitFilter(RateLimitProperties properties, LimitConfigurations rules,
			PermitWaiter waits, RateLimitedMethodRegistry methods, ObjectProvider<HandlerMapping> handlerMappings,
			@Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(
				new RateLimitFilter(rules, waits, new HandlerLimitLookup(handlerMappings, methods), exceptionResolver));
		registration.setOrder(properties.getFilter().getOrder());
		registration.setName("rateLimitFilter");
		return registration;
	}

	/** The rules with {@code charge-on-status}, before Spring Security. */
	@Bean(StarterBeans.CHARGE_ON_STATUS_FILTER)
	@ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean(name = StarterBeans.CHARGE_ON_STATUS_FILTER)
	FilterRegistrationBean<ChargeOnStatusFilter> rateLimitChargeOnStatusFilter(RateLimitProperties properties,
			LimitConfigurations rules, RateLimitEnforcer enforcer,
			@Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		FilterRegistrationBean<ChargeOnStatusFilter> registration = new FilterRegistrationBean<>(
				new ChargeOnStatusFilter(rules, enforcer, exceptionResolver));
		registration.setOrder(properties.getFilter().getChargeOnStatusOrder());
		registration.setName("rateLimitChargeOnStatusFilter");
		return registration;
	}

	/** How Spring MVC decides limited calls: on the request's thread, or outside requests. */
	@Bean(StarterBeans.CALL_LIMITER)
	@ConditionalOnMissingBean(value = CallLimiter.class, name = StarterBeans.CALL_LIMITER)
	CallLimiter rateLimitCallLimiter(ObjectProvider<PermitWaiter> waits) {
		return new ServletCallLimiter(waits);
	}

}
