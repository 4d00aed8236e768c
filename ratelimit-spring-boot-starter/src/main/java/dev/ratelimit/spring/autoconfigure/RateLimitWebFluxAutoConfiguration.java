package dev.ratelimit.spring.autoconfigure;

import java.util.concurrent.TimeUnit;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.redis.Timeouts;
import dev.ratelimit.spring.aop.CallLimiter;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.web.reactive.ChargeOnStatusWebFilter;
import dev.ratelimit.spring.web.reactive.ExchangeErrorHandler;
import dev.ratelimit.spring.web.reactive.RateLimitWebFilter;
import dev.ratelimit.spring.web.reactive.ReactiveCallLimiter;
import dev.ratelimit.spring.web.reactive.ReactiveEnforcer;
import dev.ratelimit.spring.web.reactive.ReactiveHandlerLimitLookup;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.HandlerResultHandler;

/**
 * The WebFlux side, in a reactive application with a limiter: the {@code WebFilter} for rules and annotated
 * handlers, the advisor that applies {@code @RateLimited} to methods returning {@code Mono} or {@code Flux}, and the
 * startup checks of the annotations.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(DispatcherHandler.class)
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitWebFluxAutoConfiguration {

	/** Deadlines on Reactor's parallel scheduler, whose timers never block an event loop. */
	@Bean(StarterBeans.TIMEOUTS)
	@ConditionalOnMissingBean(value = Timeouts.class, name = StarterBeans.TIMEOUTS)
	Timeouts rateLimitTimeouts() {
		return (onTimeout, delayNanos) -> Schedulers.parallel()
			.schedule(onTimeout, delayNanos, TimeUnit.NANOSECONDS)::dispose;
	}

	@Bean(StarterBeans.REACTIVE_DECISIONS)
	@ConditionalOnMissingBean(value = ReactiveEnforcer.class, name = StarterBeans.REACTIVE_DECISIONS)
	ReactiveEnforcer rateLimitReactiveDecisions(PermitWaiter waits) {
		return new ReactiveEnforcer(waits);
	}

	/** Always there, unlike the servlet filter: on WebFlux it is what applies @RateLimited to handlers. */
	@Bean(StarterBeans.WEB_FILTER)
	@ConditionalOnMissingBean(name = StarterBeans.WEB_FILTER)
	RateLimitWebFilter rateLimitWebFilter(RateLimitProperties properties, LimitConfigurations rules,
			ReactiveEnforcer decisions, RateLimitedMethodRegistry methods, ObjectProvider<HandlerMapping> handlerMappings,
			ObjectProvider<HandlerAdapter> handlerAdapters, ObjectProvider<HandlerResultHandler> resultHandlers) {
		return new RateLimitWebFilter(rules, decisions, new ReactiveHandlerLimitLookup(handlerMappings, methods),
				new ExchangeErrorHandler(handlerAdapters, resultHandlers), properties.getFilter().getOrder());
	}

	/** The rules with {@code charge-on-status}, before Spring Security. */
	@Bean(StarterBeans.CHARGE_ON_STATUS_WEB_FILTER)
	@ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean(name = StarterBeans.CHARGE_ON_STATUS_WEB_FILTER)
	ChargeOnStatusWebFilter rateLimitChargeOnStatusWebFilter(RateLimitProperties properties, LimitConfigurations rules,
			RateLimitEnforcer enforcer, ObjectProvider<HandlerAdapter> handlerAdapters,
			ObjectProvider<HandlerResultHandler> resultHandlers) {
		return new ChargeOnStatusWebFilter(rules, enforcer, new ExchangeErrorHandler(handlerAdapters, resultHandlers),
				properties.getFilter().getChargeOnStatusOrder());
	}

	/** How WebFlux decides limited calls: when their publisher is subscribed, or outside requests. */
	@Bean(StarterBeans.CALL_LIMITER)
	@ConditionalOnMissingBean(value = CallLimiter.class, name = StarterBeans.CALL_LIMITER)
	CallLimiter rateLimitCallLimiter(ObjectProvider<ReactiveEnforcer> decisions, ObjectProvider<PermitWaiter> waits) {
		return new ReactiveCallLimiter(decisions, waits);
	}

}
