package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.web.servlet.HandlerLimits;
import dev.ratelimit.spring.web.servlet.RateLimitFilter;
import dev.ratelimit.spring.web.servlet.ServletCalls;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.web.FilterRules;
import dev.ratelimit.spring.limits.LimitFactory;
import dev.ratelimit.spring.limits.LimitNames;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.aop.RateLimitedMethods;
import dev.ratelimit.spring.enforce.PermitWaits;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.HandlerMapping;

/**
 * The Spring MVC side, in a servlet application with a limiter: the filter, the advisor that applies
 * {@code @RateLimited} (to calls outside requests too), and the startup checks of the annotations. Internal to the starter: imported by
 * {@code RateLimitAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(HandlerExceptionResolver.class)
@ConditionalOnBean(RateLimiter.class)
class RateLimitWebMvcConfiguration {

	/** Checks every @RateLimited at startup, and refuses to start where no proxy would apply one. */
	@Bean
	@ConditionalOnMissingBean
	RateLimitedMethods rateLimitedMethods(LimitFactory factory, LimitNames names,
			ConfigurableListableBeanFactory beanFactory) {
		return new RateLimitedMethods(factory, names, beanFactory, RateLimitedMethods.Stack.SERVLET);
	}

	@Bean
	@ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean(name = "rateLimitFilter")
	FilterRegistrationBean<RateLimitFilter> rateLimitFilter(RateLimitProperties properties, FilterRules rules,
			PermitWaits waits, RateLimitedMethods methods, ObjectProvider<HandlerMapping> handlerMappings,
			@Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(
				new RateLimitFilter(rules, waits, new HandlerLimits(handlerMappings, methods), exceptionResolver));
		registration.setOrder(properties.getFilter().getOrder());
		registration.setName("rateLimitFilter");
		return registration;
	}

	/**
	 * Static and infrastructure, as Spring's own advisors are: the auto-proxy creator asks for advisors before most
	 * beans exist, and the limiter behind it is looked up only when a limited method is first called.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static RateLimitedAdvisor rateLimitedAdvisor(ObjectProvider<RateLimitedMethods> methods,
			ObjectProvider<PermitWaits> waits) {
		return new RateLimitedAdvisor(methods, new ServletCalls(waits));
	}

}
