package dev.ratelimit.spring.gateway;

import java.util.LinkedHashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's bean named as a bean of this module stops startup naming it, as one named as a bean of the
 * starter does (the starter's {@code StarterBeans}): left as it was, the gateway's part of the limiter would be
 * missing (the filter unknown to the gateway, routes unchecked). The module's bean names are read from the context
 * its auto-configuration builds, so a bean added without its guard fails here; written once for both gateway servers.
 */
abstract class GatewayBeanNamesContract {

	/** A context of the server under test with the module's auto-configuration, and no web server. */
	abstract AbstractApplicationContextRunner<?, ?, ?> runner();

	/** Names that the module's auto-configuration for the server under test defines, at least. */
	abstract String[] expectedNames();

	@Test
	@SuppressWarnings({ "unchecked", "rawtypes" })
	void anApplicationBeanNamedAsABeanOfTheGatewayModuleStopsStartupNamingIt() {
		Set<String> names = gatewayBeans();
		assertThat(names).contains(expectedNames());
		for (String name : names) {
			AbstractApplicationContextRunner runner = (AbstractApplicationContextRunner) application()
				.withBean(name, String.class, () -> "the application's " + name);
			runner.run((context) -> {
				ApplicationContextAssertProvider<?> assertable = (ApplicationContextAssertProvider<?>) context;
				assertThat(assertable).as(name).hasFailed();
				assertThat(NestedExceptionUtils.getMostSpecificCause(assertable.getStartupFailure())).as(name)
					.hasMessageContaining("'" + name + "' (java.lang.String")
					.hasMessageContaining("rename the application's bean");
			});
		}
	}

	/** The beans of this module's auto-configuration in a context of the server under test. */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private Set<String> gatewayBeans() {
		Set<String> names = new LinkedHashSet<>();
		AbstractApplicationContextRunner runner = application();
		runner.run((context) -> {
			assertThat((ApplicationContextAssertProvider<?>) context).hasNotFailed();
			ConfigurableListableBeanFactory beanFactory = ((ConfigurableApplicationContext) context).getBeanFactory();
			for (String name : beanFactory.getBeanDefinitionNames()) {
				String resource = String.valueOf(beanFactory.getBeanDefinition(name).getResourceDescription());
				boolean modules = resource.contains("dev.ratelimit.spring.gateway.autoconfigure.")
						|| resource.contains("dev/ratelimit/spring/gateway/autoconfigure/");
				if (modules && !name.contains(".")) {
					names.add(name);
				}
			}
		});
		return names;
	}

	/** The limiter in memory: the names are the same with Redis, which the check needs not. */
	private AbstractApplicationContextRunner<?, ?, ?> application() {
		return (AbstractApplicationContextRunner<?, ?, ?>) runner().withUserConfiguration(GatewayTestApplication.class)
			.withPropertyValues("ratelimit.store=in-memory");
	}

}
