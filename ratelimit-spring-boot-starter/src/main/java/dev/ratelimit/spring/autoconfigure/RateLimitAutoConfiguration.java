package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.limits.LimitConfigurations;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of distributed rate limiting with Redis: a {@link RateLimiter} with a Redis client of its own
 * (on the application's Redis, {@code spring.data.redis.*}, or on {@code ratelimit.redis.*}), or in this instance's
 * memory with {@code ratelimit.store=in-memory}; the enforcement, the filter rules and the 429 responses, and
 * {@code @RateLimited} outside web applications. Spring MVC, WebFlux, the annotations' advisor, metrics and the
 * endpoint have auto-configurations of their own, after this one. Switched off entirely by
 * {@code ratelimit.enabled=false}; every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
@Import({ RateLimitRedisConfiguration.class, NoRedisConfiguration.class, RateLimitInMemoryConfiguration.class,
		RateLimitEnforcerConfiguration.class, RateLimitHttpConfiguration.class, RateLimitBackgroundConfiguration.class,
		RateLimitRefreshConfiguration.class })
public final class RateLimitAutoConfiguration {

	/**
	 * The limits in force, checked at startup, in every kind of application: each configuration bound afresh from
	 * {@code ratelimit.*}, the filter rules only in a web application.
	 */
	@Bean(StarterBeans.CONFIGURATIONS)
	@ConditionalOnMissingBean(value = LimitConfigurations.class, name = StarterBeans.CONFIGURATIONS)
	LimitConfigurations rateLimitConfigurations(Environment environment, BeanFactory beanFactory,
			ApplicationContext context) {
		return new LimitConfigurations(() -> LimitSettingsBinding.bind(environment), environment, beanFactory,
				RequestStacks.of(context));
	}

	/** An application's bean named as one of the starter's never leaves the application without that part. */
	@Bean(StarterBeans.NAMES_CHECK)
	static StarterBeans rateLimitBeanNamesCheck() {
		return new StarterBeans();
	}

	/** Without spring-web no advisor can apply @RateLimited: startup stops rather than leave methods unlimited. */
	@Bean(StarterBeans.SPRING_WEB_MISSING)
	@ConditionalOnMissingClass("org.springframework.web.ErrorResponseException")
	@ConditionalOnMissingBean(name = StarterBeans.SPRING_WEB_MISSING)
	static SpringWebMissing rateLimitSpringWebMissing(ConfigurableListableBeanFactory beanFactory) {
		return new SpringWebMissing(beanFactory);
	}

}
