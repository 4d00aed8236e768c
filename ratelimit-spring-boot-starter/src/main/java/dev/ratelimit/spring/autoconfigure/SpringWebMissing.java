package dev.ratelimit.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.spring.RateLimited;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.RepeatableContainers;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Stops startup of an application without spring-web that has {@link RateLimited} beans: the limiter's answers
 * are spring-web's {@code ErrorResponseException}s, so no advisor can apply the annotation there, and the methods
 * would silently run unlimited.
 */
final class SpringWebMissing implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	SpringWebMissing(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<String> annotated = new ArrayList<>();
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(name, false);
			if (type != null && mentionsRateLimited(ClassUtils.getUserClass(type))) {
				annotated.add(ClassUtils.getUserClass(type).getName());
			}
		}
		if (!annotated.isEmpty()) {
			throw new IllegalStateException("@RateLimited on " + String.join(", ", annotated) + " would not be applied:"
					+ " the starter needs spring-web on the class path (org.springframework:spring-web, which every Spring"
					+ " Boot web starter brings) for its RateLimitExceededException");
		}
	}

	private static boolean mentionsRateLimited(Class<?> type) {
		if (annotated(MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY,
				RepeatableContainers.standardRepeatables()))) {
			return true;
		}
		boolean[] found = new boolean[1];
		ReflectionUtils.doWithMethods(type, (method) -> found[0] = true, (method) -> !found[0] && annotated(
				MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY, RepeatableContainers.standardRepeatables())));
		return found[0];
	}

	private static boolean annotated(MergedAnnotations annotations) {
		return annotations.isPresent(RateLimited.class) || annotations.isPresent(RateLimited.List.class);
	}

}
