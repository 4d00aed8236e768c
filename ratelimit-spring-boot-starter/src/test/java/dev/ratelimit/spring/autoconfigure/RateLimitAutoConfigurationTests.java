package dev.ratelimit.spring.autoconfigure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.RateLimitEventRecorder;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.FilterRuleMatcher;
import dev.ratelimit.spring.web.RateLimitExceptionHandler;
import dev.ratelimit.spring.web.servlet.RateLimitFilter;
import dev.ratelimit.test.TestRedis;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitAutoConfiguration}: which beans exist under which conditions and properties, which
 * beans back off, and which configurations stop the application at startup with a message naming the property or
 * the annotated method.
 */
class RateLimitAutoConfigurationTests {

	private static final String IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

	private static final TestRedis redis = TestRedis.shared();

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(StarterAutoConfigurations.all())
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class, JacksonAutoConfiguration.class,
				HttpMessageConvertersAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class))
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		.withPropertyValues("spring.data.redis.url=" + redis.url(), "ratelimit.redis.timeout=10s");

	private final ApplicationContextRunner nonWebContextRunner = new ApplicationContextRunner()
		.withConfiguration(StarterAutoConfigurations.all())
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class))
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		.withPropertyValues("spring.data.redis.url=" + redis.url(), "ratelimit.redis.timeout=10s");

	/** For user-defined limiters and executors; the server is shared by the test JVM and stops with it. */
	private static final JedisPooled jedis = new JedisPooled(redis.host(), redis.port());

	@AfterAll
	static void closeJedis() {
		jedis.close();
	}

	// --- Beans per condition and property

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
	void disabledRateLimitingRegistersNothing() {
		this.contextRunner.withUserConfiguration(LimitedController.class)
			.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(RedisConnectionFactory.class);
				assertThat(context).doesNotHaveBean(RateLimitProperties.class);
				assertThat(context).doesNotHaveBean(ScriptExecutor.class);
				assertThat(context).doesNotHaveBean(RateLimiter.class);
				assertThat(context).doesNotHaveBean(RateLimitEnforcer.class);
				assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class);
				assertThat(context).doesNotHaveBean(RateLimitedAdvisor.class);
				assertThat(context).doesNotHaveBean("rateLimitFilter");
				assertThat(AopUtils.isAopProxy(context.getBean(LimitedController.class))).isFalse();
			});
	}

	@Test
	void disabledRateLimitingIgnoresInvalidConfiguration() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false", "ratelimit.defaults.limit=0")
			.withUserConfiguration(ZeroLimitController.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void nonWebApplicationGetsTheLimiterAndTheAdvisorForCallsOutsideRequests() {
		this.nonWebContextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RateLimiter.class);
			assertThat(context).hasSingleBean(ScriptExecutor.class);
			assertThat(context).hasSingleBean(RateLimitEnforcer.class);
			assertThat(context).hasSingleBean(PermitWaiter.class);
			assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
			assertThat(context).hasSingleBean(RateLimitedMethodRegistry.class);
			assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class);
			assertThat(context).doesNotHaveBean(FilterRuleMatcher.class);
			assertThat(context).doesNotHaveBean("rateLimitFilter");
		});
	}

	@Test
	void withoutSpringWebAnAnnotatedBeanStopsStartupRatherThanRunUnlimited() {
		this.nonWebContextRunner.withClassLoader(new FilteredClassLoader("org.springframework.web"))
			.withBean(OutsideService.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure()))
					.contains("@RateLimited on " + OutsideService.class.getName() + " would not be applied")
					.contains("spring-web");
			});
	}

	@Test
	void withoutSpringWebAnApplicationWithoutAnnotationsGetsTheLimiter() {
		this.nonWebContextRunner.withClassLoader(new FilteredClassLoader("org.springframework.web")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RateLimiter.class);
			assertThat(context).doesNotHaveBean(RateLimitedAdvisor.class);
		});
	}

	@Test
	void anInvalidMaxWaitStopsStartupNamingTheMethod() {
		this.nonWebContextRunner.withBean(BadMaxWait.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("BadMaxWait.call(")
				.contains("maxWait '5' has no unit");
		});
	}

	@Test
	void aNegativeDefaultMaxWaitStopsStartupNamingTheProperty() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.defaults.max-wait=-1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("ratelimit.defaults.max-wait");
		});
	}

	static class OutsideService {

		@dev.ratelimit.spring.RateLimited(limit = 1, window = "1h")
		public String call() {
			return "called";
		}

	}

	static class BadMaxWait {

		@dev.ratelimit.spring.RateLimited(limit = 1, window = "1h", maxWait = "5")
		public String call() {
			return "called";
		}

	}

	@Test
	void nonWebApplicationLimiterDecidesAgainstRedis() {
		this.nonWebContextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			LimitDefinition limit = LimitDefinition.of("nonweb-" + System.nanoTime(), Algorithm.FIXED_WINDOW, 2,
					Duration.ofHours(1));
			assertThat(limiter.tryAcquire("client", limit).allowed()).isTrue();
			assertThat(limiter.tryAcquire("client", limit).allowed()).isTrue();
			assertThat(limiter.tryAcquire("client", limit).allowed()).isFalse();
		});
	}

	@Test
	void withoutAspectJAnnotatedMethodsAreAdvisedAndNoOtherBean() {
		assertThat(org.springframework.util.ClassUtils.isPresent("org.aspectj.weaver.Advice", null))
			.as("the starter brings no AspectJ").isFalse();
		this.contextRunner.withUserConfiguration(LimitedController.class, PlainController.class).run((context) -> {
			assertThat(context).hasNotFailed();
			Object limited = context.getBean(LimitedController.class);
			assertThat(AopUtils.isCglibProxy(limited)).isTrue();
			assertThat(((org.springframework.aop.framework.Advised) limited).getAdvisors())
				.hasAtLeastOneElementOfType(RateLimitedAdvisor.class);
			assertThat(AopUtils.isAopProxy(context.getBean(PlainController.class)))
				.as("a controller without limits is left as it is").isFalse();
		});
	}

	@Test
	void withoutAutoProxyingAnAnnotatedMethodStopsStartupInsteadOfGoingUnlimited() {
		this.contextRunner.withPropertyValues("spring.aop.auto=false")
			.withUserConfiguration(LimitedController.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains("LimitedController")
					.contains("would not be applied");
			});
	}

	@Test
	void withoutMicrometerEventsStillWork() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RateLimitEnforcer.class);
			assertThat(context).doesNotHaveBean(RateLimitEventRecorder.class);
		});
	}

	@Test
	void theRateLimitsEndpointExistsOnlyWhenExposedAndWithActuator() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class));
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RateLimitsEndpoint.class));
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
					"management.endpoint.ratelimits.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class));
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=*")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimitEnforcer.class)
				.doesNotHaveBean(RateLimitsEndpoint.class));
		this.nonWebContextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitsEndpoint.class));
	}

	@Test
	void withoutRedisConnectionDetailsStartupFailsAskingForARedis() {
		new WebApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains("spring.data.redis")
					.contains("ratelimit.redis.url");
			});
	}

	@Test
	void withoutSpringDataRedisAutoConfigurationTheLimitersOwnUrlIsEnough() {
		new WebApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.withPropertyValues("ratelimit.redis.url=" + redis.url(), "ratelimit.redis.timeout=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(RedisConnectionFactory.class);
				assertThat(context).hasSingleBean(RateLimitEnforcer.class).hasBean("rateLimitFilter");
				assertDecides(context.getBean(RateLimiter.class));
			});
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

	// --- User beans win

	@Test
	void userRateLimiterWins() {
		this.contextRunner.withUserConfiguration(UserRateLimiterConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RateLimiter.class);
			assertThat(context.getBean(RateLimiter.class))
				.isSameAs(context.getBean(UserRateLimiterConfiguration.class).limiter);
			assertThat(context).hasSingleBean(RateLimitEnforcer.class);
			assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
		});
	}

	@Test
	void userRateLimiterWithoutRedisConnectionFactoryEnablesTheWebSide() {
		new WebApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.withUserConfiguration(UserRateLimiterConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(ScriptExecutor.class);
				assertThat(context).hasSingleBean(RateLimiter.class);
				assertThat(context).hasSingleBean(RateLimitEnforcer.class);
				assertThat(context).hasBean("rateLimitFilter");
			});
	}

	@Test
	void userScriptExecutorWinsAndBacksTheLimiter() {
		this.contextRunner.withUserConfiguration(UserScriptExecutorConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(ScriptExecutor.class);
			CountingScriptExecutor executor = context.getBean(UserScriptExecutorConfiguration.class).executor;
			assertThat(context.getBean(ScriptExecutor.class)).isSameAs(executor);
			assertThat(context).hasSingleBean(RateLimiter.class);
			LimitDefinition limit = LimitDefinition.of("user-executor-" + System.nanoTime(), Algorithm.TOKEN_BUCKET, 1,
					Duration.ofHours(1));
			RateLimitDecision first = context.getBean(RateLimiter.class).tryAcquire("client", limit);
			RateLimitDecision second = context.getBean(RateLimiter.class).tryAcquire("client", limit);
			assertThat(first.allowed()).isTrue();
			assertThat(second.allowed()).isFalse();
			assertThat(executor.calls).hasValue(2);
		});
	}

	@Test
	void userFilterNamedRateLimitFilterWins() {
		this.contextRunner.withUserConfiguration(UserFilterConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(FilterRegistrationBean.class);
			assertThat(context.getBean("rateLimitFilter"))
				.isSameAs(context.getBean(UserFilterConfiguration.class).registration);
		});
	}

	@Test
	void keyPrefixIsApplied() {
		this.contextRunner.withPropertyValues("ratelimit.key-prefix=autoconfig-test:").run((context) -> {
			String name = "prefixed-" + System.nanoTime();
			context.getBean(RateLimiter.class)
				.tryAcquire("client", LimitDefinition.of(name, Algorithm.FIXED_WINDOW, 5, Duration.ofHours(1)));
			assertThat(jedis.keys("autoconfig-test:*" + name + "*")).hasSize(1);
		});
	}

	// --- Every listed auto-configuration loads

	@Test
	void everyListedAutoConfigurationLoads() throws Exception {
		List<String> names = listedAutoConfigurations();
		assertThat(names).contains(RateLimitAutoConfiguration.class.getName());
		for (String name : names) {
			Class<?> type = Class.forName(name, true, getClass().getClassLoader());
			assertThat(type).as(name).hasAnnotation(AutoConfiguration.class);
		}
	}

	// --- Bad properties fail startup naming the property

	@Test
	void zeroDefaultLimitFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.defaults.limit", "ratelimit.defaults.limit=0");
	}

	@Test
	void negativeDefaultCostFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.defaults.cost", "ratelimit.defaults.cost=-1");
	}

	@Test
	void zeroDefaultWindowFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.defaults.window", "ratelimit.defaults.window=0s");
	}

	@Test
	void subMillisecondDefaultWindowFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.defaults.window", "ratelimit.defaults.window=500us");
	}

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
	void unknownDefaultAlgorithmFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.defaults.algorithm", "ratelimit.defaults.algorithm=leaky-bucket");
	}

	@Test
	void unknownRuleAlgorithmFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.filter.rules[0].algorithm", "ratelimit.filter.rules[0].paths[0]=/api/**",
				"ratelimit.filter.rules[0].algorithm=leaky-bucket");
	}

	@Test
	void relaxedAlgorithmNamesBind() {
		this.contextRunner
			.withPropertyValues("ratelimit.defaults.algorithm=sliding-window-counter",
					"ratelimit.filter.rules[0].paths[0]=/api/**", "ratelimit.filter.rules[0].algorithm=fixed-window")
			.run((context) -> assertThat(context.getBean(RateLimitProperties.class).getDefaults().getAlgorithm())
				.isEqualTo(Algorithm.SLIDING_WINDOW_COUNTER));
	}

	@Test
	void ruleTokenBucketLimitOutsideLuaExactRangeFailsNamingTheProperty() {
		// (2^42 + 1) × 3,600,000 ms is far beyond 2^52.
		assertStartupFailsNaming("ratelimit.filter.rules[0].limit", "ratelimit.filter.rules[0].paths[0]=/api/**",
				"ratelimit.filter.rules[0].algorithm=token-bucket", "ratelimit.filter.rules[0].limit=4398046511104",
				"ratelimit.filter.rules[0].window=1h");
	}

	@Test
	void defaultTokenBucketLimitOutsideLuaExactRangeFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.defaults.limit", "ratelimit.defaults.algorithm=token-bucket",
				"ratelimit.defaults.limit=4398046511104", "ratelimit.defaults.window=1h");
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
	void defaultTokenBucketCapacityOutsideLuaExactRangeFailsNamingTheCapacity() {
		assertStartupFailsNaming("ratelimit.defaults.capacity", "ratelimit.defaults.algorithm=token-bucket",
				"ratelimit.defaults.capacity=4398046511104", "ratelimit.defaults.window=1h");
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
	void keyPrefixWithBracesFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.key-prefix", "ratelimit.key-prefix=rl:{tenant}:");
	}

	@Test
	void keyPrefixWithBracesFailsInNonWebApplicationToo() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.key-prefix=rl{")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.key-prefix"));
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

	// --- Bad annotations fail startup naming the method

	/**
	 * {@code limit = 0} is the annotation's "unset" value and silently takes {@code ratelimit.defaults.limit}; the
	 * HTTP spec says a limit ≤ 0 stops the application. The annotation needs an "unset" sentinel that is not a
	 * possible (invalid) value.
	 */
	@Test
	void annotationWithZeroLimitFailsNamingTheMethod() {
		assertAnnotationFailsNaming(ZeroLimitController.class, "zero");
	}

	/** As {@code limit = 0}: the spec says a cost ≤ 0 stops the application. */
	@Test
	void annotationWithZeroCostFailsNamingTheMethod() {
		assertAnnotationFailsNaming(ZeroCostController.class, "free");
	}

	@Test
	void annotationWithNegativeLimitFailsNamingTheMethod() {
		assertAnnotationFailsNaming(NegativeLimitController.class, "negative");
	}

	@Test
	void annotationWithUnknownAlgorithmFailsNamingTheMethod() {
		assertAnnotationFailsNaming(UnknownAlgorithmController.class, "leaky");
	}

	@Test
	void annotationWithBadWindowFailsNamingTheMethod() {
		assertAnnotationFailsNaming(BadWindowController.class, "soon");
	}

	@Test
	void annotationWithUnresolvableWindowPlaceholderFailsNamingTheMethod() {
		assertAnnotationFailsNaming(UnresolvableWindowController.class, "placeholder");
	}

	@Test
	void annotationWithCostAboveLimitFailsNamingTheMethod() {
		assertAnnotationFailsNaming(CostAboveLimitController.class, "expensive");
	}

	@Test
	void annotationWithInvalidKeyExpressionFailsNamingTheMethodAndExpression() {
		this.contextRunner.withUserConfiguration(InvalidKeyController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("InvalidKeyController.keyed(")
				.contains("#request.getHeader(");
		});
	}

	@Test
	void annotationKeyReferringToAMissingBeanFailsNamingTheMethodAndBean() {
		this.contextRunner.withUserConfiguration(MissingBeanKeyController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("MissingBeanKeyController.keyed(")
				.contains("'noSuchResolver', which does not exist");
		});
	}

	@Test
	void annotationKeyReadingAnUnknownVariableFailsNamingTheMethodAndVariable() {
		this.contextRunner.withUserConfiguration(MisspeltVariableKeyController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("MisspeltVariableKeyController.login(")
				.contains("#usernme")
				.contains("known are username");
		});
	}

	@Test
	void annotationKeyReadingAnArgumentByNameStarts() {
		this.contextRunner.withUserConfiguration(ArgumentKeyController.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void repeatedAnnotationsWithOneNameButTwoShapesFailNamingTheMethod() {
		this.contextRunner.withUserConfiguration(OneNameTwoShapesController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("OneNameTwoShapesController.tiers(")
				.contains("named 'tier' share a budget but differ");
		});
	}

	@Test
	void annotationOnAMethodSpringAopCannotAdviseFailsNamingTheMethod() {
		this.contextRunner.withUserConfiguration(FinalMethodController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("FinalMethodController.sealed")
				.contains("not private, final or static");
		});
	}

	@Test
	void classLimitOnAPrivateHandlerFailsNamingTheMethod() {
		this.contextRunner.withUserConfiguration(PrivateHandlerController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("PrivateHandlerController.hidden")
				.contains("not private, final or static");
		});
	}

	@Test
	void ruleAndAnnotationWithOneNameShareOneBudget() {
		this.contextRunner.withUserConfiguration(NamedApiController.class)
			.withPropertyValues("ratelimit.filter.rules[0].name=api", "ratelimit.filter.rules[0].paths[0]=/api/**",
					"ratelimit.filter.rules[0].limit=2", "ratelimit.filter.rules[0].window=1m")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void ruleAndArgumentKeyedAnnotationWithOneNameFailNamingBoth() {
		this.contextRunner.withUserConfiguration(NamedArgumentKeyController.class)
			.withPropertyValues("ratelimit.filter.rules[0].name=api", "ratelimit.filter.rules[0].paths[0]=/api/**")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains("ratelimit.filter.rules[0]")
					.contains("NamedArgumentKeyController")
					.contains("reads the method's arguments");
			});
	}

	@Test
	void annotationWindowWithoutUnitFailsNamingTheMethod() {
		this.contextRunner.withUserConfiguration(UnitlessWindowController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("UnitlessWindowController.bare(")
				.contains("window '60' has no unit");
		});
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

	@Test
	void nonPositiveUnavailableRetryAfterFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.redis.unavailable-retry-after=0s")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.redis.unavailable-retry-after"));
	}

	@Test
	void nonPositiveRedisTimeoutFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.redis.timeout=0ms")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.redis.timeout"));
	}

	@Test
	void annotationWithUnknownFailurePolicyFailsNamingTheMethod() {
		assertAnnotationFailsNaming(UnknownFailurePolicyController.class, "policy");
	}

	@Test
	void annotationWithWindowPlaceholderResolvesIt() {
		this.contextRunner.withUserConfiguration(PlaceholderWindowController.class)
			.withPropertyValues("test.window=2s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				List<ConfiguredLimit> limits = context.getBean(RateLimitedMethodRegistry.class)
					.limitsFor(PlaceholderWindowController.class.getDeclaredMethod("placeholder"),
							PlaceholderWindowController.class);
				assertThat(limits).singleElement()
					.satisfies((limit) -> assertThat(limit.request().definition().window()).isEqualTo(Duration.ofSeconds(2)));
			});
	}

	@Test
	void validAnnotationsStart() {
		this.contextRunner.withUserConfiguration(LimitedController.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	// --- The limiter's own Redis client; the application's is left alone

	@Test
	void applicationLettuceConnectionFactoryIsTheSameWithTheStarter() {
		ApplicationContextRunner runner = this.nonWebContextRunner;
		String without = lettuceSettings(runner, "ratelimit.enabled=false");
		assertThat(without).contains("commandTimeout=PT1M");
		assertThat(lettuceSettings(runner, "ratelimit.enabled=true")).isEqualTo(without);
		assertThat(lettuceSettings(runner, "ratelimit.enabled=true", "ratelimit.redis.timeout=300ms"))
			.isEqualTo(without);
	}

	@Test
	void applicationJedisConnectionFactoryIsTheSameWithTheStarter() {
		ApplicationContextRunner runner = this.nonWebContextRunner.withPropertyValues("spring.data.redis.client-type=jedis");
		String without = jedisSettings(runner, "ratelimit.enabled=false");
		assertThat(without).contains("readTimeout=PT2S").contains("maxTotal=8");
		assertThat(jedisSettings(runner, "ratelimit.enabled=true")).isEqualTo(without);
		assertThat(jedisSettings(runner, "ratelimit.enabled=true", "ratelimit.redis.timeout=300ms",
				"server.tomcat.threads.max=50")).isEqualTo(without);
	}

	@Test
	void limiterAddsNoBeanOfARedisType() {
		this.contextRunner.withUserConfiguration(LimitedController.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisConnectionFactory.class);
			assertThat(context.getBeanNamesForType(org.springframework.data.redis.core.RedisOperations.class))
				.containsExactlyInAnyOrder("redisTemplate", "stringRedisTemplate");
			assertThat(context.getBeanNamesForType(io.lettuce.core.AbstractRedisClient.class)).isEmpty();
			assertThat(context.getBeanNamesForType(redis.clients.jedis.UnifiedJedis.class)).isEmpty();
		});
	}

	@Test
	void limiterUsesJedisWhenChosenAndDecidesAgainstRedis() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.redis.client=jedis").run((context) -> {
			assertThat(context.getBean(ScriptExecutor.class).getClass().getSimpleName())
				.isEqualTo("PooledJedisScriptExecutor");
			assertDecides(context.getBean(RateLimiter.class));
		});
		this.nonWebContextRunner.withClassLoader(new FilteredClassLoader("io.lettuce")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(ScriptExecutor.class).getClass().getSimpleName())
				.isEqualTo("PooledJedisScriptExecutor");
		});
	}

	@Test
	void limiterUsesLettuceByDefault() {
		this.nonWebContextRunner.run((context) -> assertThat(
				context.getBean(ScriptExecutor.class).getClass().getSimpleName())
			.isEqualTo("LettuceScriptExecutor"));
	}

	@Test
	void limiterOnItsOwnRedisLeavesTheApplicationsRedisUntouched() {
		try (TestRedis own = TestRedis.start()) {
			this.nonWebContextRunner.withPropertyValues("ratelimit.redis.url=" + own.url(), "ratelimit.key-prefix=own:")
				.run((context) -> {
					assertDecides(context.getBean(RateLimiter.class));
					assertThat(own.command("DBSIZE")).isEqualTo(":1");
					assertThat(jedis.keys("own:*")).isEmpty();
				});
		}
	}

	@Test
	void clientLibraryThatIsMissingFailsNamingTheProperty() {
		this.nonWebContextRunner.withClassLoader(new FilteredClassLoader("redis.clients.jedis"))
			.withPropertyValues("ratelimit.redis.client=jedis")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.redis.client"));
	}

	@Test
	void withoutAnyRedisClientLibraryStartupFailsSayingWhatToAdd() {
		this.nonWebContextRunner.withClassLoader(new FilteredClassLoader("redis.clients.jedis", "io.lettuce"))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains("spring-boot-starter-data-redis");
			});
	}

	@Test
	void invalidLimiterUrlFailsNamingTheProperty() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.redis.url=http://localhost:6379")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.redis.url"));
	}

	@Test
	void applicationsOwnConnectionFactoryWithoutLimiterUrlFailsNamingTheProperty() {
		this.nonWebContextRunner.withUserConfiguration(OwnConnectionFactoryConfiguration.class).run((context) -> {
			assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.redis.url");
			assertThat(messages(context.getStartupFailure())).contains("'ownRedisConnectionFactory'");
		});
		this.nonWebContextRunner.withUserConfiguration(OwnConnectionFactoryConfiguration.class)
			.withPropertyValues("ratelimit.redis.url=" + redis.url(), "ratelimit.redis.timeout=10s")
			.run((context) -> assertDecides(context.getBean(RateLimiter.class)));
	}

	@Test
	void severalLimiterTargetsFailNamingTheProperty() {
		this.nonWebContextRunner
			.withPropertyValues("ratelimit.redis.url=" + redis.url(), "ratelimit.redis.cluster.nodes=127.0.0.1:7000")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.redis.url"));
	}

	@Test
	void limiterPasswordWithoutSentinelOrClusterFailsNamingTheProperty() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.redis.password=secret")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.redis.password"));
		this.nonWebContextRunner
			.withPropertyValues("ratelimit.redis.url=" + redis.url(), "ratelimit.redis.password=secret")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.redis.password"));
	}

	@Test
	void nonPositiveConnectTimeoutFailsNamingTheProperty() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.redis.connect-timeout=0s")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.redis.connect-timeout"));
	}

	private static void assertDecides(RateLimiter limiter) {
		LimitDefinition limit = LimitDefinition.of("own-" + System.nanoTime(), Algorithm.FIXED_WINDOW, 1,
				Duration.ofHours(1));
		assertThat(limiter.tryAcquire("client", limit).allowed()).isTrue();
		assertThat(limiter.tryAcquire("client", limit).allowed()).isFalse();
	}

	private static String lettuceSettings(ApplicationContextRunner runner, String... properties) {
		StringBuilder settings = new StringBuilder();
		runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisConnectionFactory.class);
			LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
			LettuceClientConfiguration client = factory.getClientConfiguration();
			io.lettuce.core.ClientOptions options = client.getClientOptions().orElseThrow();
			settings.append("commandTimeout=").append(client.getCommandTimeout())
				.append(", shutdownTimeout=").append(client.getShutdownTimeout())
				.append(", pooling=").append(client instanceof LettucePoolingClientConfiguration)
				.append(", connectTimeout=").append(options.getSocketOptions().getConnectTimeout())
				.append(", timeoutOptions=").append(options.getTimeoutOptions().isTimeoutCommands())
				.append(", autoReconnect=").append(options.isAutoReconnect())
				.append(", shareNativeConnection=").append(factory.getShareNativeConnection());
		});
		return settings.toString();
	}

	private static String jedisSettings(ApplicationContextRunner runner, String... properties) {
		StringBuilder settings = new StringBuilder();
		runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisConnectionFactory.class);
			JedisConnectionFactory factory = context.getBean(JedisConnectionFactory.class);
			GenericObjectPoolConfig<?> pool = factory.getPoolConfig();
			settings.append("readTimeout=").append(factory.getClientConfiguration().getReadTimeout())
				.append(", connectTimeout=").append(factory.getClientConfiguration().getConnectTimeout())
				.append(", maxTotal=").append(pool.getMaxTotal())
				.append(", maxIdle=").append(pool.getMaxIdle())
				.append(", maxWait=").append(pool.getMaxWaitDuration());
		});
		return settings.toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnConnectionFactoryConfiguration {

		@Bean
		LettuceConnectionFactory ownRedisConnectionFactory() {
			return new LettuceConnectionFactory(redis.host(), redis.port());
		}

	}

	// --- Helpers

	private void assertStartupFailsNaming(String property, String... properties) {
		this.contextRunner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(failedProperty(context.getStartupFailure())).as(messages(context.getStartupFailure()))
				.isEqualTo(property);
		});
	}

	private void assertAnnotationFailsNaming(Class<?> controller, String method) {
		this.contextRunner.withUserConfiguration(controller).run((context) -> {
			assertThat(context).hasFailed();
			// In the failure's own message, as Boot prints it, not in a cause deep under an AOP failure.
			assertThat(context.getStartupFailure().getMessage()).contains(controller.getName() + "." + method + "(");
		});
	}

	/** The configuration property that a startup failure names, as the failure analysers report it. */
	static String failedProperty(Throwable failure) {
		for (Throwable ex = failure; ex != null; ex = ex.getCause()) {
			if (ex instanceof InvalidConfigurationPropertyValueException invalid) {
				return invalid.getName();
			}
			if (ex instanceof BindException bind) {
				return (bind.getProperty() != null) ? bind.getProperty().getName().toString() : bind.getName().toString();
			}
		}
		return null;
	}

	static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable ex = failure; ex != null; ex = ex.getCause()) {
			messages.append(ex.getClass().getName()).append(": ").append(ex.getMessage()).append('\n');
		}
		return messages.toString();
	}

	private List<String> listedAutoConfigurations() throws IOException {
		List<String> names = new ArrayList<>();
		List<URL> resources = Collections.list(getClass().getClassLoader().getResources(IMPORTS));
		List<URL> ours = resources.stream().filter((url) -> url.toString().contains("ratelimit-spring-boot-starter")).toList();
		assertThat(ours).as("the starter's imports file among " + resources).hasSize(1);
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(ours.get(0).openStream(), StandardCharsets.UTF_8))) {
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				int comment = line.indexOf('#');
				String name = ((comment >= 0) ? line.substring(0, comment) : line).trim();
				if (!name.isEmpty()) {
					names.add(name);
				}
			}
		}
		return names;
	}

	// --- Test beans

	@RestController
	static class LimitedController {

		@RateLimited(limit = 10, window = "1s")
		@RateLimited(name = "hourly", limit = 1000, window = "1h", algorithm = "sliding-window-counter",
				key = "#request.getHeader('X-Api-Key')", failurePolicy = "fail-closed")
		@GetMapping("/limited")
		String limited() {
			return "ok";
		}

	}

	@RestController
	static class ZeroLimitController {

		@RateLimited(limit = 0)
		@GetMapping("/zero")
		String zero() {
			return "ok";
		}

	}

	@RestController
	static class ZeroCostController {

		@RateLimited(cost = 0)
		@GetMapping("/free")
		String free() {
			return "ok";
		}

	}

	@RestController
	static class NegativeLimitController {

		@RateLimited(limit = -1)
		@GetMapping("/negative")
		String negative() {
			return "ok";
		}

	}

	@RestController
	static class UnknownAlgorithmController {

		@RateLimited(algorithm = "leaky-bucket")
		@GetMapping("/leaky")
		String leaky() {
			return "ok";
		}

	}

	@RestController
	static class BadWindowController {

		@RateLimited(window = "soon")
		@GetMapping("/soon")
		String soon() {
			return "ok";
		}

	}

	@RestController
	static class UnresolvableWindowController {

		@RateLimited(window = "${no.such.window}")
		@GetMapping("/placeholder")
		String placeholder() {
			return "ok";
		}

	}

	@RestController
	static class PlaceholderWindowController {

		@RateLimited(window = "${test.window}")
		@GetMapping("/placeholder")
		String placeholder() {
			return "ok";
		}

	}

	@RestController
	static class CostAboveLimitController {

		@RateLimited(limit = 2, cost = 3)
		@GetMapping("/expensive")
		String expensive() {
			return "ok";
		}

	}

	@RestController
	static class InvalidKeyController {

		@RateLimited(key = "#request.getHeader(")
		@GetMapping("/keyed")
		String keyed() {
			return "ok";
		}

	}

	@RestController
	static class MisspeltVariableKeyController {

		@RateLimited(key = "#usernme")
		@GetMapping("/login")
		String login(@RequestParam String username) {
			return "ok";
		}

	}

	@RestController
	static class ArgumentKeyController {

		@RateLimited(key = "#username + ':' + #p0 + ':' + #request.remoteAddr")
		@GetMapping("/login")
		String login(@RequestParam String username) {
			return "ok";
		}

	}

	@RestController
	static class OneNameTwoShapesController {

		@RateLimited(name = "tier", limit = 10, window = "1s")
		@RateLimited(name = "tier", limit = 1000, window = "1h")
		@GetMapping("/tiers")
		String tiers() {
			return "ok";
		}

	}

	@RestController
	static class FinalMethodController {

		@RateLimited(limit = 2, window = "1m")
		@GetMapping("/sealed")
		public final String sealed() {
			return "ok";
		}

	}

	@RestController
	@RateLimited(limit = 2, window = "1m")
	static class PrivateHandlerController {

		@GetMapping("/hidden")
		private String hidden() {
			return "ok";
		}

	}

	@RestController
	static class NamedApiController {

		@RateLimited(name = "api", limit = 2, window = "1m")
		@GetMapping("/named")
		String named() {
			return "ok";
		}

	}

	@RestController
	static class PlainController {

		@GetMapping("/plain")
		String plain() {
			return "plain";
		}

	}

	@RestController
	static class NamedArgumentKeyController {

		@RateLimited(name = "api", limit = 2, window = "1m", key = "#user")
		@GetMapping("/named-by-user")
		String named(@RequestParam String user) {
			return "ok";
		}

	}

	@RestController
	static class UnitlessWindowController {

		@RateLimited(limit = 2, window = "60")
		@GetMapping("/bare")
		String bare() {
			return "ok";
		}

	}

	@RestController
	static class MissingBeanKeyController {

		@RateLimited(key = "@noSuchResolver.resolve(#request)")
		@GetMapping("/keyed")
		String keyed() {
			return "ok";
		}

	}

	@RestController
	static class UnknownFailurePolicyController {

		@RateLimited(failurePolicy = "fail-sometimes")
		@GetMapping("/policy")
		String policy() {
			return "ok";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRateLimiterConfiguration {

		final RateLimiter limiter = new RedisRateLimiter(
				new JedisScriptExecutor(jedis), "user:");

		@Bean
		RateLimiter userRateLimiter() {
			return this.limiter;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserScriptExecutorConfiguration {

		final CountingScriptExecutor executor = new CountingScriptExecutor(
				new JedisScriptExecutor(jedis));

		@Bean
		ScriptExecutor userScriptExecutor() {
			return this.executor;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserFilterConfiguration {

		final FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>();

		@Bean
		FilterRegistrationBean<OncePerRequestFilter> rateLimitFilter() {
			return this.registration;
		}

	}

	/** A real executor that counts its calls. */
	static final class CountingScriptExecutor implements ScriptExecutor {

		final AtomicInteger calls = new AtomicInteger();

		private final ScriptExecutor delegate;

		CountingScriptExecutor(ScriptExecutor delegate) {
			this.delegate = delegate;
		}

		@Override
		public List<Long> execute(LuaScript script, List<String> keys, List<String> args) {
			this.calls.incrementAndGet();
			return this.delegate.execute(script, keys, args);
		}

	}

}
