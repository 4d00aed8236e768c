package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.aop.CallLimiter;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.limits.LimitConfigurations;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * {@code @RateLimited} on any bean, whatever the stack: the startup checks of the annotations and the advisor. The
 * stack's configuration contributes only its {@link CallLimiter}, so this one comes after them.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class,
		RateLimitWebFluxAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(CallLimiter.class)
public final class RateLimitedMethodsAutoConfiguration {

	/** Checks every @RateLimited at startup, and refuses to start where no proxy, or the stack, would apply one. */
	@Bean(StarterBeans.METHODS)
	@ConditionalOnMissingBean(value = RateLimitedMethodRegistry.class, name = StarterBeans.METHODS)
	RateLimitedMethodRegistry rateLimitedMethods(LimitConfigurations configurations,
			ConfigurableListableBeanFactory beanFactory, CallLimiter calls) {
		return new RateLimitedMethodRegistry(configurations, beanFactory, calls);
	}

	/**
	 * Static and infrastructure, as Spring's own advisors are: the auto-proxy creator asks for advisors before most
	 * beans exist, and the limiter behind it is looked up only when a limited method is first called.
	 */
	@Bean(StarterBeans.ADVISOR)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean(value = RateLimitedAdvisor.class, name = StarterBeans.ADVISOR)
	static RateLimitedAdvisor rateLimitedAdvisor(ObjectProvider<RateLimitedMethodRegistry> methods,
			ObjectProvider<CallLimiter> calls) {
		return new RateLimitedAdvisor(methods, calls);
	}

}
