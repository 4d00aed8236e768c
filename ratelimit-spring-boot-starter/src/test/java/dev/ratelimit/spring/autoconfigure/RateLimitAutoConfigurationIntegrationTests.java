package dev.ratelimit.spring.autoconfigure;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.spring.limits.OverridesSync;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link RateLimitAutoConfiguration} builds, deciding against a real Redis (the test JVM's shared server): the
 * limiter of a non-web application, on the limiter's own URL, on Jedis, with a key prefix, behind the application's
 * own script executor or connection factory. The conditions alone are tested without Redis in
 * {@link RateLimitAutoConfigurationTests}.
 */
class RateLimitAutoConfigurationIntegrationTests {

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
	void withoutSpringDataRedisAutoConfigurationTheLimitersOwnUrlDecides() {
		new WebApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.withPropertyValues("ratelimit.redis.url=" + redis.url(), "ratelimit.redis.timeout=10s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertDecides(context.getBean(RateLimiter.class));
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
			// the limiter's reads of the overrides go through it too (on startup, then every poll interval)
			context.getBean(OverridesSync.class).stop();
			int before = executor.calls.get();
			RateLimitDecision first = context.getBean(RateLimiter.class).tryAcquire("client", limit);
			RateLimitDecision second = context.getBean(RateLimiter.class).tryAcquire("client", limit);
			assertThat(first.allowed()).isTrue();
			assertThat(second.allowed()).isFalse();
			assertThat(executor.calls).hasValue(before + 2);
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

	@Test
	void limiterUsesJedisWhenChosenAndDecidesAgainstRedis() {
		this.nonWebContextRunner.withPropertyValues("ratelimit.redis.client=jedis").run((context) -> {
			assertThat(context.getBean(ScriptExecutor.class).getClass().getSimpleName())
				.isEqualTo("PooledJedisScriptExecutor");
			assertDecides(context.getBean(RateLimiter.class));
		});
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
	void applicationsOwnConnectionFactoryWithALimiterUrlDecides() {
		this.nonWebContextRunner.withUserConfiguration(OwnConnectionFactoryConfiguration.class)
			.withPropertyValues("ratelimit.redis.url=" + redis.url(), "ratelimit.redis.timeout=10s")
			.run((context) -> assertDecides(context.getBean(RateLimiter.class)));
	}

	private static void assertDecides(RateLimiter limiter) {
		LimitDefinition limit = LimitDefinition.of("own-" + System.nanoTime(), Algorithm.FIXED_WINDOW, 1,
				Duration.ofHours(1));
		assertThat(limiter.tryAcquire("client", limit).allowed()).isTrue();
		assertThat(limiter.tryAcquire("client", limit).allowed()).isFalse();
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnConnectionFactoryConfiguration {

		@Bean
		LettuceConnectionFactory ownRedisConnectionFactory() {
			return new LettuceConnectionFactory(redis.host(), redis.port());
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
