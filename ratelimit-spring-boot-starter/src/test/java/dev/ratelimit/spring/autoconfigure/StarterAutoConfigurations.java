package dev.ratelimit.spring.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.util.ClassUtils;

/** The starter's auto-configurations as its {@code AutoConfiguration.imports} lists them: what an application gets. */
public final class StarterAutoConfigurations {

	private StarterAutoConfigurations() {
	}

	public static AutoConfigurations all() {
		return AutoConfigurations.of(classes());
	}

	static Class<?>[] classes() {
		ClassLoader classLoader = StarterAutoConfigurations.class.getClassLoader();
		List<Class<?>> ours = ImportCandidates.load(AutoConfiguration.class, classLoader)
			.getCandidates()
			.stream()
			.filter((name) -> name.startsWith("dev.ratelimit."))
			.<Class<?>>map((name) -> ClassUtils.resolveClassName(name, classLoader))
			.toList();
		return ours.toArray(Class<?>[]::new);
	}

}
