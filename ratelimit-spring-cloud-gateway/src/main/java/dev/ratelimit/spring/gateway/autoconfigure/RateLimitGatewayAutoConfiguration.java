package dev.ratelimit.spring.gateway.autoconfigure;

import dev.ratelimit.spring.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.spring.autoconfigure.RateLimitWebFluxAutoConfiguration;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.gateway.RouteLimits;
import dev.ratelimit.spring.gateway.webflux.RateLimitGatewayRateLimiter;
import dev.ratelimit.spring.gateway.webflux.RateLimitedGatewayFilterFactory;
import dev.ratelimit.spring.gateway.webflux.RouteLimitsCheck;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.web.reactive.ExchangeErrorHandler;
import dev.ratelimit.spring.web.reactive.ReactiveEnforcer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResultHandler;

/**
 * Spring Cloud Gateway Server WebFlux: the {@code RateLimited} route filter, and the {@code RateLimiter} that a
 * route's {@code RequestRateLimiter} may name ({@code #{@rateLimitGatewayRateLimiter}}). Its beans' names are in the
 * starter's check of bean names ({@code StarterBeans}): an application's bean of one of them stops startup, naming it.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitWebFluxAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(GatewayFilterFactory.class)
@ConditionalOnBean(ReactiveEnforcer.class)
public final class RateLimitGatewayAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(value = RouteLimits.class, name = "rateLimitRouteLimits")
	RouteLimits rateLimitRouteLimits(LimitConfigurations configurations) {
		return new RouteLimits(configurations);
	}

	@Bean
	@ConditionalOnMissingBean(value = RateLimitedGatewayFilterFactory.class, name = "rateLimitedGatewayFilterFactory")
	RateLimitedGatewayFilterFactory rateLimitedGatewayFilterFactory(RouteLimits limits, ReactiveEnforcer decisions,
			ObjectProvider<HandlerAdapter> handlerAdapters, ObjectProvider<HandlerResultHandler> resultHandlers) {
		return new RateLimitedGatewayFilterFactory(limits, decisions,
				new ExchangeErrorHandler(handlerAdapters, resultHandlers));
	}

	/**
	 * No default candidate: the gateway's {@code RequestRateLimiterGatewayFilterFactory} takes the one
	 * {@code RateLimiter} of the context by type, which stays the application's ({@code RedisRateLimiter}, say);
	 * a route names this one.
	 */
	@Bean(defaultCandidate = false)
	@ConditionalOnMissingBean(name = "rateLimitGatewayRateLimiter")
	RateLimitGatewayRateLimiter rateLimitGatewayRateLimiter(RouteLimits limits, PermitWaiter waits,
			ObjectProvider<ConfigurationService> configurationService) {
		return new RateLimitGatewayRateLimiter(limits, waits, configurationService.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitRouteLimitsCheck")
	RouteLimitsCheck rateLimitRouteLimitsCheck(ObjectProvider<RouteLocator> routes, RouteLimits limits) {
		return new RouteLimitsCheck(routes, limits);
	}

}
