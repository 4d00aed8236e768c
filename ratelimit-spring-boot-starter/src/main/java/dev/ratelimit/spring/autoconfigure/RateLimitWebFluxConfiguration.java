package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.web.reactive.ExchangeErrors;
import dev.ratelimit.spring.web.reactive.RateLimitWebFilter;
import dev.ratelimit.spring.web.reactive.ReactiveCalls;
import dev.ratelimit.spring.web.reactive.ReactiveDecisions;
import dev.ratelimit.spring.web.reactive.ReactiveHandlerLimits;

import java.util.concurrent.TimeUnit;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.web.FilterRules;
import dev.ratelimit.spring.limits.LimitFactory;
import dev.ratelimit.spring.limits.LimitNames;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.aop.RateLimitedMethods;
import dev.ratelimit.spring.enforce.Timeouts;
import dev.ratelimit.spring.enforce.PermitWaits;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.HandlerResultHandler;

/**
 * The WebFlux side, in a reactive application with a limiter: the {@code WebFilter} for rules and annotated
 * handlers, the advisor that applies {@code @RateLimited} to methods returning {@code Mono} or {@code Flux}, and the
 * startup checks of the annotations. Internal to the starter: imported by {@code RateLimitAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(DispatcherHandler.class)
@ConditionalOnBean(RateLimiter.class)
class RateLimitWebFluxConfiguration {

	/** Checks every @RateLimited at startup, and refuses to start where WebFlux would not apply one. */
	@Bean
	@ConditionalOnMissingBean
	RateLimitedMethods rateLimitedMethods(LimitFactory factory, LimitNames names,
			ConfigurableListableBeanFactory beanFactory) {
		return new RateLimitedMethods(factory, names, beanFactory, RateLimitedMethods.Stack.REACTIVE);
	}

	/** Deadlines on Reactor's parallel scheduler, whose timers never block an event loop. */
	@Bean
	@ConditionalOnMissingBean
	Timeouts rateLimitTimeouts() {
		return (onTimeout, delayNanos) -> Schedulers.parallel()
			.schedule(onTimeout, delayNanos, TimeUnit.NANOSECONDS)::dispose;
	}

	@Bean
	@ConditionalOnMissingBean
	ReactiveDecisions rateLimitReactiveDecisions(PermitWaits waits) {
		return new ReactiveDecisions(waits);
	}

	/** Always there, unlike the servlet filter: on WebFlux it is what applies @RateLimited to handlers. */
	@Bean
	@ConditionalOnMissingBean(name = "rateLimitWebFilter")
	RateLimitWebFilter rateLimitWebFilter(RateLimitProperties properties, FilterRules rules,
			ReactiveDecisions decisions, RateLimitedMethods methods, ObjectProvider<HandlerMapping> handlerMappings,
			ObjectProvider<HandlerAdapter> handlerAdapters, ObjectProvider<HandlerResultHandler> resultHandlers) {
		return new RateLimitWebFilter(rules, decisions, new ReactiveHandlerLimits(handlerMappings, methods),
				new ExchangeErrors(handlerAdapters, resultHandlers), properties.getFilter().getOrder());
	}

	/**
	 * Static and infrastructure, as Spring's own advisors are: the auto-proxy creator asks for advisors before most
	 * beans exist, and the limiter behind it is looked up only when a limited method is first called.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static RateLimitedAdvisor rateLimitedAdvisor(ObjectProvider<RateLimitedMethods> methods,
			ObjectProvider<ReactiveDecisions> decisions, ObjectProvider<PermitWaits> waits) {
		return new RateLimitedAdvisor(methods, new ReactiveCalls(decisions, waits));
	}

}
