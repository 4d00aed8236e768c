package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.autoconfigure.RateLimitedMethodsAutoConfigurationTests.LimitedController;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.web.RateLimitExceptionHandler;
import dev.ratelimit.spring.web.servlet.RateLimitFilter;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.ratelimit.spring.autoconfigure.RateLimitAutoConfigurationTests.failedProperty;
import static dev.ratelimit.spring.autoconfigure.RateLimitAutoConfigurationTests.messages;

/**
 * Tests for {@link RateLimitWebMvcAutoConfiguration}: the servlet filter, its order, what switches it off, and the
 * filter rules that stop the application at startup naming the property. On a Redis where nothing listens
 * ({@link WithoutRedis}): building the beans connects nothing, and no test here needs or waits for a Redis.
 */
class RateLimitWebMvcAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = WithoutRedis.servlet();

	// --- The filter

	@Test
	void webApplicationGetsLimiterFilterAspectAndHandler() {
		this.contextRunner.withUserConfiguration(LimitedController.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RateLimitProperties.class);
			assertThat(context).hasSingleBean(ScriptExecutor.class);
			assertThat(context).hasSingleBean(RateLimiter.class);
			assertThat(context.getBean(RateLimiter.class)).isInstanceOf(RedisRateLimiter.class);
			assertThat(context).hasSingleBean(RateLimitEnforcer.class);
			assertThat(context).hasSingleBean(RateLimitExceptionHandler.class);
			assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
			assertThat(context).hasSingleBean(RateLimitedMethodRegistry.class);
			assertThat(context).hasBean("rateLimitFilter");
			assertThat(context.getBean("rateLimitFilter", FilterRegistrationBean.class).getFilter())
				.isInstanceOf(RateLimitFilter.class)
				.isInstanceOf(OncePerRequestFilter.class);
			assertThat(AopUtils.isAopProxy(context.getBean(LimitedController.class)))
				.as("an @RateLimited controller is advised by the aspect")
				.isTrue();
		});
	}

	@Test
	void filterUsesConfiguredOrder() {
		this.contextRunner.withPropertyValues("ratelimit.filter.order=-42")
			.run((context) -> assertThat(context.getBean("rateLimitFilter", FilterRegistrationBean.class).getOrder())
				.isEqualTo(-42));
	}

	@Test
	void disabledFilterRegistersNoFilterButKeepsAspect() {
		this.contextRunner.withPropertyValues("ratelimit.filter.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean("rateLimitFilter");
			assertThat(context).getBeans(FilterRegistrationBean.class).isEmpty();
			assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
			assertThat(context).hasSingleBean(RateLimitEnforcer.class);
		});
	}

	@Test
	void disabledFilterIgnoresItsRules() {
		this.contextRunner
			.withPropertyValues("ratelimit.filter.enabled=false", "ratelimit.filter.rules[0].paths[0]=/api/**",
					"ratelimit.filter.rules[0].limit=2", "ratelimit.filter.rules[0].cost=3")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("rateLimitFilter"));
	}

	@Test
	void userFilterNamedRateLimitFilterWins() {
		this.contextRunner.withUserConfiguration(UserFilterConfiguration.class).run((context) -> {
			// the user's registration, and the filter of the rules charged by status beside it
			assertThat(context.getBeansOfType(FilterRegistrationBean.class)).containsOnlyKeys("rateLimitFilter",
					"rateLimitChargeOnStatusFilter");
			assertThat(context.getBean("rateLimitFilter"))
				.isSameAs(context.getBean(UserFilterConfiguration.class).registration);
		});
	}

	// --- Bad rules fail startup naming the property

	@Test
	void ruleCostAboveItsLimitFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.filter.rules[0].cost", "ratelimit.filter.rules[0].paths[0]=/api/**",
				"ratelimit.filter.rules[0].algorithm=fixed-window", "ratelimit.filter.rules[0].limit=2",
				"ratelimit.filter.rules[0].cost=3");
	}

	@Test
	void ruleCostAboveTokenBucketCapacityFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.filter.rules[0].cost", "ratelimit.filter.rules[0].paths[0]=/api/**",
				"ratelimit.filter.rules[0].algorithm=token-bucket", "ratelimit.filter.rules[0].limit=10",
				"ratelimit.filter.rules[0].capacity=2", "ratelimit.filter.rules[0].cost=3");
	}

	@Test
	void secondRuleIsNamedByItsIndex() {
		assertStartupFailsNaming("ratelimit.filter.rules[1].limit", "ratelimit.filter.rules[0].paths[0]=/a/**",
				"ratelimit.filter.rules[1].paths[0]=/b/**", "ratelimit.filter.rules[1].limit=0");
	}

	@Test
	void unknownRuleAlgorithmFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.filter.rules[0].algorithm", "ratelimit.filter.rules[0].paths[0]=/api/**",
				"ratelimit.filter.rules[0].algorithm=leaky-bucket");
	}

	@Test
	void ruleTokenBucketLimitOutsideLuaExactRangeFailsNamingTheProperty() {
		// (2^42 + 1) × 3,600,000 ms is far beyond 2^52.
		assertStartupFailsNaming("ratelimit.filter.rules[0].limit", "ratelimit.filter.rules[0].paths[0]=/api/**",
				"ratelimit.filter.rules[0].algorithm=token-bucket", "ratelimit.filter.rules[0].limit=4398046511104",
				"ratelimit.filter.rules[0].window=1h");
	}

	/**
	 * The capacity is what leaves the range here; the message must name the capacity, not the (valid) limit.
	 */
	@Test
	void ruleTokenBucketCapacityOutsideLuaExactRangeFailsNamingTheCapacity() {
		assertStartupFailsNaming("ratelimit.filter.rules[0].capacity", "ratelimit.filter.rules[0].paths[0]=/api/**",
				"ratelimit.filter.rules[0].algorithm=token-bucket", "ratelimit.filter.rules[0].limit=10",
				"ratelimit.filter.rules[0].capacity=4398046511104", "ratelimit.filter.rules[0].window=1h");
	}

	@Test
	void tokenBucketAtTheEdgeOfLuaExactRangeStarts() {
		// (limit + 1) × 1000 ms just below 2^52.
		this.contextRunner
			.withPropertyValues("ratelimit.filter.rules[0].paths[0]=/api/**",
					"ratelimit.filter.rules[0].algorithm=token-bucket", "ratelimit.filter.rules[0].limit=4503599627368",
					"ratelimit.filter.rules[0].window=1s")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void invalidRuleKeyExpressionFailsNamingThePropertyAndExpression() {
		String expression = "#request.getHeader('X-Api-Key'";
		this.contextRunner
			.withPropertyValues("ratelimit.filter.rules[0].paths[0]=/api/**", "ratelimit.filter.rules[0].key=" + expression)
			.run((context) -> {
				assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.filter.rules[0].key");
				assertThat(messages(context.getStartupFailure())).contains(expression);
			});
	}

	@Test
	void ruleKeyReferringToAMissingBeanFailsNamingThePropertyAndBean() {
		this.contextRunner
			.withPropertyValues("ratelimit.filter.rules[0].paths[0]=/api/**",
					"ratelimit.filter.rules[0].key=@noSuchResolver.resolve(#request)")
			.run((context) -> {
				assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.filter.rules[0].key");
				assertThat(messages(context.getStartupFailure())).contains("'noSuchResolver', which does not exist");
			});
	}

	@Test
	void invalidRulePathPatternFailsNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("ratelimit.filter.rules[0].paths[0]=/api/**", "ratelimit.filter.rules[0].paths[1]=/api/{id")
			.run((context) -> {
				assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.filter.rules[0].paths[1]");
				assertThat(messages(context.getStartupFailure())).contains("/api/{id");
			});
	}

	@Test
	void ruleWithoutPathsFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.filter.rules[0].paths", "ratelimit.filter.rules[0].limit=5");
	}

	@Test
	void ruleCapacityOnNonTokenBucketFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.filter.rules[0].capacity", "ratelimit.filter.rules[0].paths[0]=/api/**",
				"ratelimit.filter.rules[0].algorithm=fixed-window", "ratelimit.filter.rules[0].capacity=5");
	}

	@Test
	void validRulesStart() {
		this.contextRunner
			.withPropertyValues("ratelimit.filter.rules[0].name=api", "ratelimit.filter.rules[0].paths[0]=/api/**",
					"ratelimit.filter.rules[0].methods[0]=post", "ratelimit.filter.rules[0].limit=10",
					"ratelimit.filter.rules[0].window=1s", "ratelimit.filter.rules[0].cost=10",
					"ratelimit.filter.rules[0].key=#request.getHeader('X-Api-Key')",
					"ratelimit.filter.rules[0].failure-policy=fail-closed")
			.run((context) -> assertThat(context).hasNotFailed().hasBean("rateLimitFilter"));
	}

	@Test
	void rulePathWithoutLeadingSlashFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.filter.rules[0].paths[0]=api/**")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.filter.rules[0].paths[0]"));
	}

	@Test
	void ruleWithAnUnknownHttpMethodFailsNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("ratelimit.filter.rules[0].paths[0]=/api/**", "ratelimit.filter.rules[0].methods[0]=GET",
					"ratelimit.filter.rules[0].methods[1]=FETCH")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.filter.rules[0].methods[1]"));
	}

	@Test
	void ruleNameOutsidePrintableAsciiFailsNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("ratelimit.filter.rules[0].paths[0]=/api/**", "ratelimit.filter.rules[0].name=配额")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.filter.rules[0].name"));
	}

	private void assertStartupFailsNaming(String property, String... properties) {
		this.contextRunner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(failedProperty(context.getStartupFailure())).as(messages(context.getStartupFailure()))
				.isEqualTo(property);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class UserFilterConfiguration {

		final FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>();

		@Bean
		FilterRegistrationBean<OncePerRequestFilter> rateLimitFilter() {
			return this.registration;
		}

	}

}
