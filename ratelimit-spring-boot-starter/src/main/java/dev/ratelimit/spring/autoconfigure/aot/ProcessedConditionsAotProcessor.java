package dev.ratelimit.spring.autoconfigure.aot;

import java.util.Map;

import javax.lang.model.element.Modifier;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.generate.GeneratedMethod;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Records, when an application is processed ahead of time, what the starter's condition properties decided
 * ({@link ProcessedConditionChecker}), as a generated initializer method that checks them again at run time, before any
 * bean is created. Spring's own mechanism for code that runs with the generated bean definitions: registered in
 * {@code META-INF/spring/aot.factories}, so it applies to every application with the starter, whatever the
 * properties turned off.
 */
final class ProcessedConditionsAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		if (!beanFactory.containsBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME)) {
			return null;
		}
		Map<String, String> processed = ProcessedConditionChecker.outcomes(
				beanFactory.getBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME, Environment.class));
		return (generationContext, code) -> {
			GeneratedMethod method = code.getMethods().add("requireRateLimitConditionsAsProcessed", (builder) -> {
				builder.addJavadoc("Stops startup where a condition property of the rate limiter decides otherwise than"
						+ " when the application was processed ahead of time.");
				builder.addModifiers(Modifier.PUBLIC, Modifier.STATIC);
				builder.addParameter(Environment.class, "environment");
				processed.forEach((property, outcome) -> builder.addStatement("$T.require(environment, $S, $S)",
						ProcessedConditionChecker.class, property, outcome));
			});
			code.addInitializer(method.toMethodReference());
		};
	}

}
