package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.openapi.RateLimitOpenApiCustomizer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * The limits in springdoc-openapi's document, in a web application with a limiter and springdoc-openapi (an optional
 * dependency of the starter: without it, nothing here is loaded).
 */
@AutoConfiguration(after = RateLimitedMethodsAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnWebApplication
@ConditionalOnClass(name = "org.springdoc.core.customizers.GlobalOpenApiCustomizer")
@ConditionalOnBean(LimitConfigurations.class)
public final class RateLimitOpenApiAutoConfiguration {

	@Bean(StarterBeans.OPENAPI_CUSTOMIZER)
	@ConditionalOnMissingBean(value = RateLimitOpenApiCustomizer.class, name = StarterBeans.OPENAPI_CUSTOMIZER)
	RateLimitOpenApiCustomizer rateLimitOpenApiCustomizer(LimitConfigurations configurations,
			ObjectProvider<RateLimitedMethodRegistry> methods, RateLimitProperties properties) {
		return new RateLimitOpenApiCustomizer(configurations, methods, properties.getHeaderStyle());
	}

}
