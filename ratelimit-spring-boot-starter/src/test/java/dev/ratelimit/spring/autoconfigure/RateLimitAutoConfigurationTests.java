package dev.ratelimit.spring.autoconfigure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.autoconfigure.RateLimitedMethodsAutoConfigurationTests.LimitedController;
import dev.ratelimit.spring.autoconfigure.RateLimitedMethodsAutoConfigurationTests.ZeroLimitController;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.limits.FilterRuleMatcher;
import dev.ratelimit.spring.web.RateLimitExceptionHandler;
import io.micrometer.core.instrument.MeterRegistry;
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
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitAutoConfiguration}: which beans exist under which conditions and properties (store, Redis
 * client, the application's own beans), and which configurations stop the application at startup with a message naming
 * the property. On a Redis where nothing listens ({@link WithoutRedis}): building the beans connects nothing, and no
 * test here needs or waits for a Redis.
 * <p>
 * What needs Redis to decide is in {@link RateLimitAutoConfigurationIntegrationTests}; the filter's rules in
 * {@link RateLimitWebMvcAutoConfigurationTests}; the annotations in {@link RateLimitedMethodsAutoConfigurationTests}.
 */
public class RateLimitAutoConfigurationTests {

	private static final String IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

	private final WebApplicationContextRunner contextRunner = WithoutRedis.servlet();

	private final ApplicationContextRunner nonWebContextRunner = WithoutRedis.nonWeb();

	/** For the user-defined limiter, which these tests never call: nothing listens there, and nothing connects. */
	private static final JedisPooled jedis = new JedisPooled("127.0.0.1", 1);

	@AfterAll
	static void closeJedis() {
		jedis.close();
	}

	// --- Beans per condition and property

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
			assertThat(context.getBean(LimitConfigurations.class).current().rules().isEmpty()).isTrue();
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
			.withPropertyValues("ratelimit.redis.url=" + WithoutRedis.URL, "ratelimit.redis.timeout=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(RedisConnectionFactory.class);
				assertThat(context).hasSingleBean(RateLimitEnforcer.class).hasBean("rateLimitFilter");
			});
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
	void unknownDefaultAlgorithmFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.defaults.algorithm", "ratelimit.defaults.algorithm=leaky-bucket");
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
	void defaultTokenBucketLimitOutsideLuaExactRangeFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.defaults.limit", "ratelimit.defaults.algorithm=token-bucket",
				"ratelimit.defaults.limit=4398046511104", "ratelimit.defaults.window=1h");
	}

	@Test
	void defaultTokenBucketCapacityOutsideLuaExactRangeFailsNamingTheCapacity() {
		assertStartupFailsNaming("ratelimit.defaults.capacity", "ratelimit.defaults.algorithm=token-bucket",
				"ratelimit.defaults.capacity=4398046511104", "ratelimit.defaults.window=1h");
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
	void nonPositiveUnavailableRetryAfterFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.redis.unavailable-retry-after=0s")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.redis.unavailable-retry-after"));
	}

	@Test
	void aNearLimitRatioOutsideItsRangeFailsNamingTheProperty() {
		for (String ratio : new String[] { "0", "-0.5", "1", "1.01", "NaN" }) {
			assertStartupFailsNaming("ratelimit.metrics.near-limit-ratio", "ratelimit.metrics.near-limit-ratio=" + ratio);
		}
		// ...also without Micrometer, where no meter would count it
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.withPropertyValues("ratelimit.metrics.near-limit-ratio=2")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.metrics.near-limit-ratio"));
		this.contextRunner.withPropertyValues("ratelimit.metrics.near-limit-ratio=0.99")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void nonPositiveRedisTimeoutFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.redis.timeout=0ms")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.redis.timeout"));
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
	void withoutLettuceTheLimiterUsesJedis() {
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
	}

	@Test
	void severalLimiterTargetsFailNamingTheProperty() {
		this.nonWebContextRunner
			.withPropertyValues("ratelimit.redis.url=" + WithoutRedis.URL, "ratelimit.redis.cluster.nodes=127.0.0.1:7000")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure())).isEqualTo("ratelimit.redis.url"));
	}

	@Test
	void limiterPasswordWithoutSentinelOrClusterFailsNamingTheProperty() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.redis.password=secret")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.redis.password"));
		this.nonWebContextRunner
			.withPropertyValues("ratelimit.redis.url=" + WithoutRedis.URL, "ratelimit.redis.password=secret")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.redis.password"));
	}

	@Test
	void nonPositiveConnectTimeoutFailsNamingTheProperty() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.redis.connect-timeout=0s")
			.run((context) -> assertThat(failedProperty(context.getStartupFailure()))
				.isEqualTo("ratelimit.redis.connect-timeout"));
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
			return new LettuceConnectionFactory("127.0.0.1", 1);
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

	public static String messages(Throwable failure) {
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

	@Configuration(proxyBeanMethods = false)
	static class UserRateLimiterConfiguration {

		final RateLimiter limiter = new RedisRateLimiter(
				new JedisScriptExecutor(jedis), "user:");

		@Bean
		RateLimiter userRateLimiter() {
			return this.limiter;
		}

	}

}
