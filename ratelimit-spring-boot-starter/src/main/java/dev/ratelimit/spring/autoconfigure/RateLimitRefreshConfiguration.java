package dev.ratelimit.spring.autoconfigure;

import java.util.Locale;

import dev.ratelimit.spring.limits.LimitConfigurations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Spring Cloud: a change of {@code ratelimit.*} in the environment (a refresh, Config Server, Kubernetes
 * ConfigMaps) rebuilds the limits; an invalid one is logged and changes nothing.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
class RateLimitRefreshConfiguration {

	private static final Log logger = LogFactory.getLog(RateLimitRefreshConfiguration.class);

	/** What a binding failure hides in its causes: the unbound or unconvertible property. */
	private static String rootCause(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return (root != ex) ? " (" + root.getMessage() + ")" : "";
	}

	@Bean(StarterBeans.ENVIRONMENT_CHANGES)
	@ConditionalOnMissingBean(name = StarterBeans.ENVIRONMENT_CHANGES)
	ApplicationListener<EnvironmentChangeEvent> rateLimitEnvironmentChanges(LimitConfigurations configurations) {
		return (event) -> {
			if (event.getKeys().stream().noneMatch((key) -> key.toLowerCase(Locale.ROOT).startsWith("ratelimit"))) {
				return;
			}
			try {
				configurations.environmentChanged();
			}
			catch (RuntimeException ex) {
				logger.error("The changed ratelimit.* properties are not valid; the limits stay as they were: "
						+ ex.getMessage() + rootCause(ex));
			}
		};
	}

}
