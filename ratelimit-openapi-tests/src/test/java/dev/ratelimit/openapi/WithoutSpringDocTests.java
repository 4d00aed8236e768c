package dev.ratelimit.openapi;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

import dev.ratelimit.spring.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.spring.autoconfigure.RateLimitOpenApiAutoConfiguration;
import dev.ratelimit.spring.autoconfigure.RateLimitWebMvcAutoConfiguration;
import dev.ratelimit.spring.autoconfigure.RateLimitedMethodsAutoConfiguration;
import dev.ratelimit.spring.openapi.RateLimitOpenApiCustomizer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter in a Spring MVC application without springdoc-openapi (hidden from the context by its class loader):
 * the application has exactly the beans it has without the starter's OpenAPI auto-configuration, and no customizer.
 */
class WithoutSpringDocTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, JacksonAutoConfiguration.class,
				HttpMessageConvertersAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class, RateLimitAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class,
				RateLimitedMethodsAutoConfiguration.class))
		.withPropertyValues("ratelimit.store=in-memory");

	@Test
	void withSpringDocTheStarterAddsItsCustomizer() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, null).getCandidates())
			.contains(RateLimitOpenApiAutoConfiguration.class.getName());
		this.runner.withConfiguration(AutoConfigurations.of(RateLimitOpenApiAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RateLimitOpenApiCustomizer.class));
	}

	@Test
	void withoutSpringDocNothingChanges() {
		FilteredClassLoader withoutSpringDoc = new FilteredClassLoader("org.springdoc.");
		Set<String> without = new TreeSet<>();
		this.runner.withClassLoader(withoutSpringDoc).run((context) -> {
			assertThat(context).hasNotFailed();
			without.addAll(beans(context));
		});
		this.runner.withConfiguration(AutoConfigurations.of(RateLimitOpenApiAutoConfiguration.class))
			.withClassLoader(withoutSpringDoc)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitOpenApiCustomizer.class);
				assertThat(beans(context)).isEqualTo(without);
			});
	}

	private static Set<String> beans(ApplicationContext context) {
		return new TreeSet<>(Arrays.asList(context.getBeanDefinitionNames()));
	}

}
