package dev.ratelimit.spring.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The names of the starter's beans, one place for the {@code @Bean} methods, their conditions and the check that an
 * application's bean of the same name never silently replaces one of the starter's or is replaced by it.
 *
 * <p>
 * Every bean of the starter is conditional on the absence of a bean of its name (besides its type): an application's
 * bean of that name is never overridden, whether or not {@code spring.main.allow-bean-definition-overriding} is set.
 * Once every definition is registered, this check then stops startup when a bean of one of these names is not of the
 * starter's type for it: left as it was, the application would run without that part of the limiter (unlimited,
 * perhaps). A bean of the starter's type under its name is the application's replacement on purpose, and stays.
 */
final class StarterBeans implements BeanFactoryPostProcessor {

	// The limiter's own names start with "rateLimit"; "rateLimiter" was the limiter's name up to 0.1.0-SNAPSHOT of
	// 2026-12, the name applications give their own limiters (Spring Cloud Gateway's, Resilience4j's), now free.
	static final String RATE_LIMITER = "rateLimitRateLimiter";

	static final String SCRIPT_EXECUTOR = "rateLimitScriptExecutor";

	static final String REDIS_CONNECTION = "rateLimitRedisConnection";

	static final String LEASE_WAITS = "rateLimitLeaseWaits";

	static final String CONFIGURATIONS = "rateLimitConfigurations";

	static final String SPRING_WEB_MISSING = "rateLimitSpringWebMissing";

	static final String ENFORCER = "rateLimitEnforcer";

	static final String REMEMBERED_DENIALS = "rateLimitRememberedDenials";

	static final String PLANS_CHECK = "rateLimitPlansCheck";

	static final String OVERRIDES = "rateLimitOverrides";

	static final String PERMIT_WAITS = "rateLimitPermitWaits";

	static final String RESET = "rateLimitReset";

	/**
	 * The application's clock of the limits, never a bean of the starter's: its type is checked as the others' are,
	 * since a bean of this name that is no clock would leave the limits on the system's clock without a word.
	 */
	static final String CLOCK = "rateLimitClock";

	static final String EXCEPTION_HANDLER = "rateLimitExceptionHandler";

	static final String CALL_LIMITER = "rateLimitCallLimiter";

	static final String ENVIRONMENT_CHANGES = "rateLimitEnvironmentChanges";

	static final String FILTER = "rateLimitFilter";

	static final String CHARGE_ON_STATUS_FILTER = "rateLimitChargeOnStatusFilter";

	static final String TIMEOUTS = "rateLimitTimeouts";

	static final String REACTIVE_DECISIONS = "rateLimitReactiveDecisions";

	static final String WEB_FILTER = "rateLimitWebFilter";

	static final String CHARGE_ON_STATUS_WEB_FILTER = "rateLimitChargeOnStatusWebFilter";

	static final String METHODS = "rateLimitedMethods";

	static final String ADVISOR = "rateLimitedAdvisor";

	static final String EVENTS = "rateLimitEvents";

	static final String METERS_AT_STARTUP = "rateLimitMetersAtStartup";

	static final String ENDPOINT = "rateLimitsEndpoint";

	static final String ENDPOINT_FIELDS = "rateLimitsEndpointFields";

	// The beans of ratelimit-spring-cloud-gateway, which depends on the starter: its auto-configurations name them
	// alike, and this check guards them where that module (and its gateway server) is.

	static final String ROUTE_LIMITS = "rateLimitRouteLimits";

	static final String GATEWAY_FILTER_FACTORY = "rateLimitedGatewayFilterFactory";

	static final String GATEWAY_RATE_LIMITER = "rateLimitGatewayRateLimiter";

	static final String ROUTE_LIMITS_CHECK = "rateLimitRouteLimitsCheck";

	static final String MVC_ROUTE_LIMITER = "rateLimitMvcRouteLimiter";

	static final String MVC_ROUTE_LIMITS_CHECK = "rateLimitMvcRouteLimitsCheck";

	static final String MVC_FILTER_FUNCTIONS = "rateLimitedFilterFunctions";

	static final String OPENAPI_CUSTOMIZER = "rateLimitOpenApiCustomizer";

	/** This check's own name, which an application cannot pick by chance (as Spring's internal beans have). */
	static final String NAMES_CHECK = "dev.ratelimit.spring.autoconfigure.StarterBeans";

	/**
	 * Each name with the type its bean has, by class name: a type of an optional library (WebFlux's, say) is only
	 * checked where that library is.
	 */
	private static final Map<String, String> TYPES = new LinkedHashMap<>();

	static {
		TYPES.put(RATE_LIMITER, "dev.ratelimit.core.RateLimiter");
		TYPES.put(SCRIPT_EXECUTOR, "dev.ratelimit.core.ScriptExecutor");
		TYPES.put(REDIS_CONNECTION, "dev.ratelimit.spring.redis.RedisConnectionLifecycle");
		TYPES.put(LEASE_WAITS, "dev.ratelimit.spring.enforce.LeaseWaits");
		TYPES.put(CONFIGURATIONS, "dev.ratelimit.spring.limits.LimitConfigurations");
		TYPES.put(SPRING_WEB_MISSING, "dev.ratelimit.spring.autoconfigure.SpringWebMissing");
		TYPES.put(ENFORCER, "dev.ratelimit.spring.enforce.RateLimitEnforcer");
		TYPES.put(REMEMBERED_DENIALS, "dev.ratelimit.spring.enforce.DenialCache");
		TYPES.put(PLANS_CHECK, "org.springframework.context.ApplicationListener");
		TYPES.put(OVERRIDES, "dev.ratelimit.spring.limits.OverridesSync");
		TYPES.put(PERMIT_WAITS, "dev.ratelimit.spring.enforce.PermitWaiter");
		TYPES.put(RESET, "dev.ratelimit.spring.RateLimitReset");
		TYPES.put(CLOCK, "java.time.InstantSource");
		TYPES.put(EXCEPTION_HANDLER, "dev.ratelimit.spring.web.RateLimitExceptionHandler");
		TYPES.put(CALL_LIMITER, "dev.ratelimit.spring.aop.CallLimiter");
		TYPES.put(ENVIRONMENT_CHANGES, "org.springframework.context.ApplicationListener");
		TYPES.put(FILTER, "org.springframework.boot.web.servlet.FilterRegistrationBean");
		TYPES.put(CHARGE_ON_STATUS_FILTER, "org.springframework.boot.web.servlet.FilterRegistrationBean");
		TYPES.put(TIMEOUTS, "dev.ratelimit.core.redis.Timeouts");
		TYPES.put(REACTIVE_DECISIONS, "dev.ratelimit.spring.web.reactive.ReactiveEnforcer");
		TYPES.put(WEB_FILTER, "org.springframework.web.server.WebFilter");
		TYPES.put(CHARGE_ON_STATUS_WEB_FILTER, "org.springframework.web.server.WebFilter");
		TYPES.put(METHODS, "dev.ratelimit.spring.aop.RateLimitedMethodRegistry");
		TYPES.put(ADVISOR, "dev.ratelimit.spring.aop.RateLimitedAdvisor");
		TYPES.put(EVENTS, "dev.ratelimit.spring.enforce.RateLimitEventRecorder");
		TYPES.put(METERS_AT_STARTUP, "org.springframework.context.ApplicationListener");
		TYPES.put(ENDPOINT, "dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint");
		TYPES.put(ENDPOINT_FIELDS, "org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor");
		TYPES.put(ROUTE_LIMITS, "dev.ratelimit.spring.gateway.RouteLimits");
		TYPES.put(GATEWAY_FILTER_FACTORY, "dev.ratelimit.spring.gateway.webflux.RateLimitedGatewayFilterFactory");
		TYPES.put(GATEWAY_RATE_LIMITER, "dev.ratelimit.spring.gateway.webflux.RateLimitGatewayRateLimiter");
		TYPES.put(ROUTE_LIMITS_CHECK, "dev.ratelimit.spring.gateway.webflux.RouteLimitsCheck");
		TYPES.put(MVC_ROUTE_LIMITER, "dev.ratelimit.spring.gateway.mvc.MvcRouteLimiter");
		TYPES.put(MVC_ROUTE_LIMITS_CHECK, "dev.ratelimit.spring.gateway.mvc.MvcRouteLimitsCheck");
		TYPES.put(MVC_FILTER_FUNCTIONS, "dev.ratelimit.spring.gateway.mvc.RateLimitedFilterFunctions$FilterSupplier");
		TYPES.put(OPENAPI_CUSTOMIZER, "dev.ratelimit.spring.openapi.RateLimitOpenApiCustomizer");
	}

	/** Every name of a bean of the starter, in no particular order. */
	static List<String> names() {
		return List.copyOf(TYPES.keySet());
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		List<String> clashes = new ArrayList<>();
		TYPES.forEach((name, typeName) -> {
			if (!beanFactory.containsBeanDefinition(name) || !ClassUtils.isPresent(typeName, classLoader)) {
				return;
			}
			Class<?> type = beanFactory.getType(name, false);
			if (type != null && !ClassUtils.resolveClassName(typeName, classLoader).isAssignableFrom(type)) {
				clashes.add("'" + name + "' (" + type.getName() + ", where the starter has a "
						+ ClassUtils.getShortName(typeName) + ")");
			}
		});
		if (!clashes.isEmpty()) {
			throw new IllegalStateException("The application defines beans named as beans of the ratelimit starter: "
					+ String.join(", ", clashes) + ". The starter leaves an application's bean in place, so that part of"
					+ " the limiter would be missing: rename the application's bean (every name the starter uses starts"
					+ " with 'rateLimit').");
		}
	}

}
