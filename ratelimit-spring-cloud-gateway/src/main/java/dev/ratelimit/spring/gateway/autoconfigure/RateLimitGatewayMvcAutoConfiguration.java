package dev.ratelimit.spring.gateway.autoconfigure;

import dev.ratelimit.spring.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.spring.autoconfigure.RateLimitWebMvcAutoConfiguration;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.gateway.RouteLimits;
import dev.ratelimit.spring.gateway.mvc.MvcRouteLimiter;
import dev.ratelimit.spring.gateway.mvc.MvcRouteLimitsCheck;
import dev.ratelimit.spring.gateway.mvc.RateLimitedFilterFunctions;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.web.servlet.DenialRenderer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Spring Cloud Gateway Server MVC: the {@code RateLimited} route filter. Its beans' names are in the starter's check of
 * bean names ({@code StarterBeans}): an application's bean of one of them stops startup, naming it.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(FilterSupplier.class)
@ConditionalOnBean(PermitWaiter.class)
public final class RateLimitGatewayMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(value = RouteLimits.class, name = "rateLimitRouteLimits")
	RouteLimits rateLimitRouteLimits(LimitConfigurations configurations) {
		return new RouteLimits(configurations);
	}

	@Bean
	@ConditionalOnMissingBean(value = MvcRouteLimiter.class, name = "rateLimitMvcRouteLimiter")
	MvcRouteLimiter rateLimitMvcRouteLimiter(RouteLimits limits, PermitWaiter waits,
			@Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		return new MvcRouteLimiter(limits, waits, new DenialRenderer(exceptionResolver));
	}

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitMvcRouteLimitsCheck")
	MvcRouteLimitsCheck rateLimitMvcRouteLimitsCheck(Environment environment, RouteLimits limits) {
		return new MvcRouteLimitsCheck(environment, limits);
	}

	/** How Gateway Server MVC finds the {@code RateLimited} filter of its routes. */
	@Bean
	@ConditionalOnMissingBean(name = "rateLimitedFilterFunctions")
	RateLimitedFilterFunctions.FilterSupplier rateLimitedFilterFunctions() {
		return new RateLimitedFilterFunctions.FilterSupplier();
	}

}
