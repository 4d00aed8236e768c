package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.ratelimit.core.RateLimiter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * The HTTP side, in a servlet Spring MVC application with a limiter: the filter, the advisor that applies @RateLimited, and the responses.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(HandlerExceptionResolver.class)
@ConditionalOnBean(RateLimiter.class)
@Import(RateLimitWebConfiguration.MetricsConfiguration.class)
class RateLimitWebConfiguration {

	private static final List<String> STANDARD_METHODS = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
			"OPTIONS", "TRACE");

	@Bean
	@ConditionalOnMissingBean
	LimitNames rateLimitNames() {
		return new LimitNames();
	}

	/** Checks every @RateLimited at startup, and refuses to start where no proxy would apply one. */
	@Bean
	@ConditionalOnMissingBean
	RateLimitedMethods rateLimitedMethods(LimitFactory factory, LimitNames names,
			ConfigurableListableBeanFactory beanFactory) {
		return new RateLimitedMethods(factory, names, beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitEnforcer rateLimitEnforcer(RateLimiter rateLimiter, RateLimitProperties properties,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<RateLimitEvents> events) {
		RateLimitResponses responses = new RateLimitResponses(new RateLimitHeaders(properties.getHeaderStyle()),
				RateLimitProperties.requirePositive("ratelimit.redis.unavailable-retry-after", properties.getRedis().getUnavailableRetryAfter()));
		return new RateLimitEnforcer(rateLimiter,
				RateLimitProperties.requirePositive("ratelimit.redis.timeout", properties.getRedis().getTimeout()),
				new ClientKeys(beanFactory, properties.getMissingKey(), responses), responses,
				events.getIfAvailable(() -> new RateLimitEvents(RateLimitProperties.requirePositive("ratelimit.redis.failure-log-interval",
						properties.getRedis().getFailureLogInterval()))));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitExceptionHandler rateLimitExceptionHandler() {
		return new RateLimitExceptionHandler();
	}

	@Bean
	@ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean(name = "rateLimitFilter")
	FilterRegistrationBean<RateLimitFilter> rateLimitFilter(RateLimitProperties properties, LimitFactory factory,
			LimitNames names, RateLimitEnforcer enforcer, RateLimitedMethods methods,
			ObjectProvider<HandlerMapping> handlerMappings,
			@Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		List<FilterRule> rules = new ArrayList<>();
		List<RateLimitProperties.Rule> configured = properties.getFilter().getRules();
		for (int i = 0; i < configured.size(); i++) {
			String property = "ratelimit.filter.rules[" + i + "]";
			RateLimitProperties.Rule rule = configured.get(i);
			ConfiguredLimit limit = factory.fromRule(rule, property);
			try {
				names.register(limit);
			}
			catch (IllegalStateException ex) {
				throw new InvalidConfigurationPropertyValueException(property + ".name", limit.name(), ex.getMessage());
			}
			rules.add(new FilterRule(limit, patterns(rule.getPaths(), property), methods(rule.getMethods(), property)));
		}
		FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(
				new RateLimitFilter(rules, enforcer, new HandlerLimits(handlerMappings, methods), exceptionResolver));
		registration.setOrder(properties.getFilter().getOrder());
		registration.setName("rateLimitFilter");
		return registration;
	}

	private static Set<String> methods(List<String> methods, String property) {
		for (int i = 0; i < methods.size(); i++) {
			if (!STANDARD_METHODS.contains(methods.get(i).toUpperCase(Locale.ROOT))) {
				throw new InvalidConfigurationPropertyValueException(property + ".methods[" + i + "]", methods.get(i),
						"Not an HTTP method; use one of " + STANDARD_METHODS + ".");
			}
		}
		return Set.copyOf(methods);
	}

	private static List<PathPattern> patterns(List<String> paths, String property) {
		List<PathPattern> patterns = new ArrayList<>();
		for (int i = 0; i < paths.size(); i++) {
			if (!paths.get(i).startsWith("/")) {
				throw new InvalidConfigurationPropertyValueException(property + ".paths[" + i + "]", paths.get(i),
						"A path pattern starts with '/', such as '/api/**'; without it, it would match nothing.");
			}
			try {
				patterns.add(PathPatternParser.defaultInstance.parse(paths.get(i)));
			}
			catch (PatternParseException ex) {
				throw new InvalidConfigurationPropertyValueException(property + ".paths[" + i + "]", paths.get(i),
						"Not a valid path pattern: " + ex.getMessage());
			}
		}
		return patterns;
	}

	/**
	 * Static and infrastructure, as Spring's own advisors are: the auto-proxy creator asks for advisors before most
	 * beans exist, and the limiter behind it is looked up only when a limited method is first called.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static RateLimitedAdvisor rateLimitedAdvisor(ObjectProvider<RateLimitedMethods> methods,
			ObjectProvider<RateLimitEnforcer> enforcer) {
		return new RateLimitedAdvisor(methods, enforcer);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitEvents rateLimitEvents(RateLimitProperties properties, ObjectProvider<MeterRegistry> registry) {
			MeterRegistry meterRegistry = registry.getIfAvailable();
			Duration logInterval = RateLimitProperties.requirePositive("ratelimit.redis.failure-log-interval",
					properties.getRedis().getFailureLogInterval());
			return (meterRegistry != null) ? new RateLimitEvents.Metered(logInterval, meterRegistry)
					: new RateLimitEvents(logInterval);
		}

	}

}
