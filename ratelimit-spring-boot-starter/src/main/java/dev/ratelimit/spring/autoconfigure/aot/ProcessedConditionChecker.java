package dev.ratelimit.spring.autoconfigure.aot;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.spring.autoconfigure.StoreCondition;
import dev.ratelimit.spring.limits.Terms;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

/**
 * The starter's own condition properties, and what they decided, in an application processed ahead of time.
 *
 * <p>
 * Why: processed ahead of time ({@code spring-boot:process-aot}, and every native image), an application's
 * conditions are evaluated once, when it is processed, and its bean definitions are generated code; at run time
 * nothing evaluates them again. A condition property of the starter set otherwise at run time
 * ({@code ratelimit.store=in-memory} on an application processed with Redis, say) would be ignored silently: the
 * limits would stay where they were processed to be, or stay on while {@code ratelimit.enabled=false} says off. So
 * {@link ProcessedConditionsAotProcessor} records what the properties decided when processing, and the generated
 * initializer calls {@link #require} for each at run time, before any bean exists: a property that now decides
 * otherwise stops startup naming it.
 *
 * <p>
 * What is compared is each property's outcome, as its condition reads it, not its text: {@code ratelimit.store}
 * unset and {@code ratelimit.store=redis} are the same store. Conditions of Spring Boot (the web application type,
 * the Actuator endpoint's exposure, {@code spring.data.redis.client-type}) are Boot's to check, and are not checked
 * here. Public for the generated code, which lives in the application's packages; internal to the starter.
 */
public final class ProcessedConditionChecker {

	/** {@code @ConditionalOnBooleanProperty} of {@code RateLimitAutoConfiguration}: everything on or off. */
	static final String ENABLED = "ratelimit.enabled";

	/** {@code StoreCondition}: the Redis or in-memory configuration. */
	static final String STORE = "ratelimit.store";

	/** {@code @ConditionalOnBooleanProperty} of the Spring MVC filter's registration. */
	static final String FILTER_ENABLED = "ratelimit.filter.enabled";

	private ProcessedConditionChecker() {
	}

	/** What each condition property decides in {@code environment}, by property name. */
	static Map<String, String> outcomes(Environment environment) {
		Map<String, String> outcomes = new LinkedHashMap<>();
		outcomes.put(ENABLED, outcome(environment, ENABLED));
		outcomes.put(STORE, outcome(environment, STORE));
		outcomes.put(FILTER_ENABLED, outcome(environment, FILTER_ENABLED));
		return outcomes;
	}

	/**
	 * Stops startup unless {@code property} decides in {@code environment} what it decided when the application was
	 * processed ahead of time. Called by the generated initializer.
	 * @param processed the outcome recorded when processing, as {@link #outcomes} gives it
	 * @throws InvalidConfigurationPropertyValueException naming the property when it decides otherwise now
	 */
	public static void require(Environment environment, String property, String processed) {
		String now = outcome(environment, property);
		if (!now.equals(processed)) {
			throw new InvalidConfigurationPropertyValueException(property, environment.getProperty(property),
					"The application was processed ahead of time (spring-boot:process-aot, as for a native image) with "
							+ property + "=" + processed + ", and its conditions were decided then: at run time it is "
							+ now + ". Set " + property + " to the same value when processing and when running, or"
							+ " process the application again with this one.");
		}
	}

	/**
	 * The outcome of {@code property}'s condition: for the boolean properties as
	 * {@code @ConditionalOnBooleanProperty(matchIfMissing = true)} reads them (on when missing or {@code true} in any
	 * case, off for any other value), for the store as {@link StoreCondition} binds it.
	 */
	static String outcome(Environment environment, String property) {
		if (STORE.equals(property)) {
			return Terms.of(StoreCondition.configured(environment));
		}
		if (ENABLED.equals(property) || FILTER_ENABLED.equals(property)) {
			String value = environment.getProperty(property);
			return String.valueOf(value == null || "true".equalsIgnoreCase(value));
		}
		throw new IllegalArgumentException("Not a condition property of the starter: " + property);
	}

}
