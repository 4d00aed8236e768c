package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's bean named as one of the starter's: it is never replaced by the starter's, nor does it silently
 * stand in for it. Either both live ({@code rateLimiter}, the name applications give their own limiters, no longer
 * the starter's) or startup stops, naming the bean to rename. The starter's names are read from the contexts the
 * starter builds (Spring MVC with the endpoint, WebFlux, in memory), not from the list that the check keeps, so a bean
 * added to the starter without its guard fails here.
 */
class StarterBeanNamesTests {

	private static final String[] ENDPOINT = { "management.endpoints.web.exposure.include=ratelimits" };

	@Test
	void anApplicationBeanNamedRateLimiterLivesBesideTheStartersLimiter() {
		WithoutRedis.servlet()
			.withBean("rateLimiter", String.class, () -> "the application's own limiter")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean("rateLimiter")).isEqualTo("the application's own limiter");
				assertThat(context).hasSingleBean(RateLimiter.class).hasSingleBean(RateLimitEnforcer.class);
				assertThat(context.getBean(RateLimiter.class)).isSameAs(context.getBean("rateLimitRateLimiter"));
			});
	}

	@Test
	void everyBeanOfTheStarterIsGuardedByTheCheck() {
		assertThat(StarterBeans.names()).containsAll(startersBeans().keySet());
	}

	@Test
	void anApplicationBeanNamedAsAStartersBeanStopsStartupNamingIt() {
		Map<String, Runner> beans = startersBeans();
		assertThat(beans).containsKeys("rateLimitRateLimiter", "rateLimitFilter", "rateLimitWebFilter",
				"rateLimitEnforcer", "rateLimitsEndpoint", "rateLimitedAdvisor");
		beans.forEach((name, runner) -> {
			for (boolean overriding : new boolean[] { false, true }) {
				runner.run((context) -> {
					assertThat(context).as("%s, overriding %s", name, overriding).hasFailed();
					assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure())).as(name)
						.hasMessageContaining("'" + name + "' (java.lang.String")
						.hasMessageContaining("rename the application's bean");
				}, "spring.main.allow-bean-definition-overriding=" + overriding, name);
			}
		});
	}

	@Test
	void anApplicationBeanNamedRateLimitClockThatIsNoClockStopsStartupNamingIt() {
		WithoutRedis.servlet()
			.withPropertyValues("ratelimit.store=in-memory")
			.withBean("rateLimitClock", String.class, () -> "a clock of the application's own kind")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
					.hasMessageContaining("'rateLimitClock' (java.lang.String, where the starter has a InstantSource)");
			});
	}

	@Test
	void theApplicationsRateLimitClockIsTheTimeOfTheLimiterTheStarterMakes() {
		InstantSource clock = InstantSource.fixed(Instant.parse("2030-01-01T00:00:00Z"));
		LimitDefinition limit = LimitDefinition.of("daily", Algorithm.FIXED_WINDOW, 1, Duration.ofDays(1));
		WithoutRedis.servlet()
			.withPropertyValues("ratelimit.store=in-memory")
			.withBean("rateLimitClock", InstantSource.class, () -> clock)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// at midnight of the clock's day, whatever today is: the day's whole window is left
				assertThat(context.getBean(RateLimiter.class).tryAcquire("client", limit).decisions().get(0)
					.resetAfterMs()).isEqualTo(Duration.ofDays(1).toMillis());
			});
	}

	@Test
	void anApplicationBeanOfTheStartersTypeUnderItsNameReplacesItOnPurpose() {
		WithoutRedis.servlet()
			.withBean("rateLimitRateLimiter", RateLimiter.class, dev.ratelimit.core.InMemoryRateLimiter::new)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RateLimiter.class);
				assertThat(context.getBean(RateLimiter.class)).isInstanceOf(dev.ratelimit.core.InMemoryRateLimiter.class);
			});
	}

	/** The beans that the starter's own configurations define, each with a runner of a context where it exists. */
	private static Map<String, Runner> startersBeans() {
		Map<String, Runner> beans = new LinkedHashMap<>();
		collect(beans, new Runner(WithoutRedis.servlet(), ENDPOINT));
		collect(beans, new Runner(WithoutRedis.servlet(), "ratelimit.store=in-memory"));
		collect(beans, new Runner(new ReactiveWebApplicationContextRunner().withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
					WebFluxAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + WithoutRedis.URL)));
		return beans;
	}

	private static void collect(Map<String, Runner> beans, Runner runner) {
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			ConfigurableListableBeanFactory beanFactory = ((ConfigurableApplicationContext) context).getBeanFactory();
			for (String name : beanFactory.getBeanDefinitionNames()) {
				BeanDefinition definition = beanFactory.getBeanDefinition(name);
				String resource = String.valueOf(definition.getResourceDescription());
				// the starter's @Bean methods; not its configuration classes or properties, named by class
				boolean starters = resource.contains("dev.ratelimit.spring.autoconfigure.")
						|| resource.contains("dev/ratelimit/spring/autoconfigure/");
				if (starters && !name.contains(".")) {
					beans.putIfAbsent(name, runner);
				}
			}
		}, null, null);
	}

	/** A context runner with properties, to which a test adds an application bean of a name. */
	private record Runner(AbstractApplicationContextRunner<?, ?, ?> runner, String... properties) {

		@SuppressWarnings({ "unchecked", "rawtypes" })
		void run(Consumer<ApplicationContextAssertProvider<?>> assertions, @Nullable String property,
				@Nullable String applicationBean) {
			AbstractApplicationContextRunner runner = this.runner.withPropertyValues(this.properties);
			if (property != null) {
				runner = (AbstractApplicationContextRunner) runner.withPropertyValues(property);
			}
			if (applicationBean != null) {
				runner = (AbstractApplicationContextRunner) runner.withBean(applicationBean, String.class,
						() -> "the application's " + applicationBean);
			}
			runner.run((context) -> assertions.accept((ApplicationContextAssertProvider<?>) context));
		}

	}

}
