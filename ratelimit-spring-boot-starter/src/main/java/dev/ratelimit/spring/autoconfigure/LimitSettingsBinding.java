package dev.ratelimit.spring.autoconfigure;

import java.util.List;

import dev.ratelimit.spring.limits.LimitConfigurations;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.IgnoreTopLevelConverterNotFoundBindHandler;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Binds {@code ratelimit.*} afresh for each configuration of the limits: never the properties bean, which Spring
 * Cloud's refresh rebinds in place while requests read it.
 */
final class LimitSettingsBinding {

	/** Rules need spring-web's path patterns; without spring-web nothing could apply them. */
	private static final boolean SPRING_WEB = ClassUtils.isPresent("org.springframework.web.util.pattern.PathPattern",
			LimitSettingsBinding.class.getClassLoader());

	private LimitSettingsBinding() {
	}

	static LimitConfigurations.Settings bind(Environment environment) {
		// as @ConfigurationProperties(ignoreUnknownFields = false) binds them at startup: a misspelt property is refused
		RateLimitProperties properties = Binder.get(environment)
			.bindOrCreate("ratelimit", Bindable.of(RateLimitProperties.class),
					new NoUnboundElementsBindHandler(new IgnoreTopLevelConverterNotFoundBindHandler()));
		// The in-memory store never fails: its limits have no local share to check.
		Integer failLocalInstances = (properties.getStore() == RateLimitProperties.Store.IN_MEMORY) ? null
				: properties.getFailLocal().getInstances();
		return new LimitConfigurations.Settings(properties,
				(SPRING_WEB && properties.getFilter().isEnabled()) ? properties.getFilter().getRules() : List.of(),
				failLocalInstances);
	}

}
