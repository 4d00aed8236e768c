package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.FilterRuleMatcher;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.server.PathContainer;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Startup of {@code ratelimit.store} and of the {@code fail-local} failure policy: which limiter each store gives
 * (in memory: no Redis client, no Redis needed), and the configurations that stop the application at startup with
 * a message naming the property or the annotated method, as {@link RateLimitAutoConfigurationTests} does for the
 * rest.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreAndFailLocalConfigurationIntegrationTests {

	/** Nothing listens there: a client that tried to connect would fail. */
	private static final String[] CLOSED_REDIS = { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1" };

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(StarterAutoConfigurations.all())
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class, JacksonAutoConfiguration.class,
				HttpMessageConvertersAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + TestRedis.shared().url(), "ratelimit.redis.timeout=10s");

	// --- ratelimit.store

	@Test
	void inMemoryStoreDecidesInMemoryWithoutAnyRedisClient() {
		this.contextRunner.withPropertyValues("ratelimit.store=in-memory")
			.withPropertyValues(CLOSED_REDIS)
			.withUserConfiguration(ShareController.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(RateLimiter.class);
				assertThat(context.getBean(RateLimiter.class)).isInstanceOf(InMemoryRateLimiter.class);
				assertThat(context).doesNotHaveBean(ScriptExecutor.class);
				assertThat(context.getBeanNamesForType(io.lettuce.core.AbstractRedisClient.class)).isEmpty();
				assertThat(context.getBeanNamesForType(redis.clients.jedis.UnifiedJedis.class)).isEmpty();
				assertThat(context).hasSingleBean(RateLimitEnforcer.class).hasBean("rateLimitFilter");
				assertDecides(context.getBean(RateLimiter.class));
			});
	}

	@Test
	void inMemoryStoreBindsRelaxedly() {
		for (String value : new String[] { "IN_MEMORY", "in_memory", "In-Memory" }) {
			this.contextRunner.withPropertyValues("ratelimit.store=" + value)
				.withPropertyValues(CLOSED_REDIS)
				.run((context) -> assertThat(context.getBean(RateLimiter.class)).as(value)
					.isInstanceOf(InMemoryRateLimiter.class));
		}
	}

	@Test
	void inMemoryStoreNeedsNoRedisAtAll() {
		// Without Redis connection details the Redis store stops startup (RateLimitAutoConfigurationTests), and
		// without any Redis library on the class path there is no Redis to speak of.
		new WebApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class, DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.lettuce", "redis.clients", "org.springframework.data.redis"))
			.withPropertyValues("ratelimit.store=in-memory")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RateLimiter.class)).isInstanceOf(InMemoryRateLimiter.class);
				assertThat(context).hasSingleBean(RateLimitEnforcer.class).hasBean("rateLimitFilter");
			});
		new ApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withPropertyValues("ratelimit.store=in-memory")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertDecides(context.getBean(RateLimiter.class));
				// calls outside requests are limited in memory too
				assertThat(context).doesNotHaveBean(ScriptExecutor.class).hasSingleBean(RateLimitEnforcer.class);
			});
	}

	/** Spring Boot's Redis module, Spring Data Redis and both clients: none of them on the class path. */
	private static final FilteredClassLoader NO_REDIS_AT_ALL = new FilteredClassLoader("org.springframework.boot.data.redis",
			"org.springframework.data.redis", "io.lettuce", "redis.clients");

	@Test
	void inMemoryStoreStartsWithoutSpringBootsRedisModule() {
		new WebApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.withClassLoader(NO_REDIS_AT_ALL)
			.withPropertyValues("ratelimit.store=in-memory")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertDecides(context.getBean(RateLimiter.class));
				assertThat(context).hasSingleBean(RateLimitEnforcer.class).hasBean("rateLimitFilter");
			});
	}

	@Test
	void redisStoreWithoutSpringDataRedisStopsStartupSayingWhatToAdd() {
		new WebApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.withClassLoader(NO_REDIS_AT_ALL)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(RateLimitAutoConfigurationTests.messages(context.getStartupFailure())).contains("spring-boot-starter-data-redis")
					.contains("ratelimit.store=in-memory");
			});
	}

	@Test
	void redisStoreWithoutSpringDataRedisUsesTheApplicationsOwnLimiter() {
		new ApplicationContextRunner()
			.withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withClassLoader(NO_REDIS_AT_ALL)
			.withBean(RateLimiter.class, InMemoryRateLimiter::new)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertDecides(context.getBean(RateLimiter.class));
			});
	}

	@Test
	void redisIsTheDefaultStore() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ScriptExecutor.class);
			assertThat(context.getBean(RateLimiter.class)).isNotInstanceOf(InMemoryRateLimiter.class);
		});
		this.contextRunner.withPropertyValues("ratelimit.store=redis")
			.run((context) -> assertThat(context).hasSingleBean(ScriptExecutor.class));
	}

	@Test
	void unknownStoreFailsNamingThePropertyAndTheValidValues(CapturedOutput output) {
		this.contextRunner.withPropertyValues("ratelimit.store=memory")
			.withPropertyValues(CLOSED_REDIS)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(RateLimitAutoConfigurationTests.failedProperty(context.getStartupFailure()))
					.as(RateLimitAutoConfigurationTests.messages(context.getStartupFailure()))
					.isEqualTo("ratelimit.store");
			});
		// What Boot prints for it when the application starts.
		assertThatException().isThrownBy(() -> startApplication("--ratelimit.store=memory"));
		assertThat(output).contains("Failed to bind properties under 'ratelimit.store'").contains("\"memory\"")
			.contains("The following values are valid:");
		assertThat(output.toString().substring(output.toString().lastIndexOf("The following values are valid:")))
			.contains("IN_MEMORY")
			.contains("REDIS");
	}

	@Test
	void disabledRateLimitingIgnoresAnUnknownStore() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false", "ratelimit.store=memory")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimiter.class));
	}

	// --- ratelimit.fail-local.*

	@Test
	void failLocalInstancesBelowOneFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.fail-local.instances", "ratelimit.fail-local.instances=0");
		assertStartupFailsNaming("ratelimit.fail-local.instances", "ratelimit.fail-local.instances=-2");
	}

	@Test
	void nonPositiveProbeIntervalFailsNamingTheProperty() {
		assertStartupFailsNaming("ratelimit.fail-local.probe-interval", "ratelimit.fail-local.probe-interval=0s");
	}

	@Test
	void ruleWhoseLocalShareIsBelowItsCostFailsNamingTheRuleAndTheInstances() {
		String[] rule = { "ratelimit.filter.rules[0].name=scarce-rule", "ratelimit.filter.rules[0].paths=/scarce",
				"ratelimit.filter.rules[0].limit=4", "ratelimit.filter.rules[0].cost=3",
				"ratelimit.filter.rules[0].failure-policy=fail-local" };
		// 4 / 2 = 2 < 3
		assertRuleFails(rule, "ratelimit.fail-local.instances=2");
		// Each instance alone has the whole limit.
		this.contextRunner.withPropertyValues(rule)
			.withPropertyValues("ratelimit.fail-local.instances=1")
			.run((context) -> assertThat(context).hasNotFailed());
		// The same rule failing closed has no local share to check.
		this.contextRunner.withPropertyValues(rule)
			.withPropertyValues("ratelimit.fail-local.instances=2", "ratelimit.filter.rules[0].failure-policy=fail-closed")
			.run((context) -> assertThat(context).hasNotFailed());
		// With the in-memory store no limit fails over: no local share to check either.
		this.contextRunner.withPropertyValues(rule)
			.withPropertyValues("ratelimit.fail-local.instances=2", "ratelimit.store=in-memory")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void ruleFailingLocallyByTheDefaultPolicyIsCheckedToo() {
		assertRuleFails(new String[] { "ratelimit.filter.rules[0].name=scarce-rule",
				"ratelimit.filter.rules[0].paths=/scarce", "ratelimit.filter.rules[0].limit=4",
				"ratelimit.filter.rules[0].cost=3", "ratelimit.defaults.failure-policy=fail-local" },
				"ratelimit.fail-local.instances=2");
	}

	@Test
	void tokenBucketRuleWhoseLocalCapacityIsBelowItsCostFails() {
		String[] rule = { "ratelimit.filter.rules[0].name=scarce-rule", "ratelimit.filter.rules[0].paths=/scarce",
				"ratelimit.filter.rules[0].algorithm=token-bucket", "ratelimit.filter.rules[0].limit=8",
				"ratelimit.filter.rules[0].cost=3", "ratelimit.filter.rules[0].failure-policy=fail-local",
				"ratelimit.fail-local.instances=2" };
		// The limit's share (4) would admit a cost of 3; the capacity's (2) never does.
		this.contextRunner.withPropertyValues(rule)
			.withPropertyValues("ratelimit.filter.rules[0].capacity=4")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(RateLimitAutoConfigurationTests.messages(context.getStartupFailure()))
					.contains("'scarce-rule'")
					.contains("ratelimit.fail-local.instances");
			});
		this.contextRunner.withPropertyValues(rule)
			.withPropertyValues("ratelimit.filter.rules[0].capacity=6")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void annotationWhoseLocalShareIsBelowItsCostFailsNamingTheMethodAndTheInstances() {
		this.contextRunner.withUserConfiguration(ScarceAnnotationController.class)
			.withPropertyValues("ratelimit.fail-local.instances=2")
			.run((context) -> {
				assertThat(context).hasFailed();
				// In the failure's own message, as Boot prints it.
				assertThat(context.getStartupFailure().getMessage())
					.contains(ScarceAnnotationController.class.getName() + ".scarce(")
					.contains("ratelimit.fail-local.instances");
			});
		this.contextRunner.withUserConfiguration(ScarceAnnotationController.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void failLocalPolicyParsesForRulesAndAnnotationsWithTheLocalShare() {
		this.contextRunner.withUserConfiguration(ShareController.class)
			.withPropertyValues("ratelimit.fail-local.instances=2", "ratelimit.filter.rules[0].name=share-rule",
					"ratelimit.filter.rules[0].paths=/share", "ratelimit.filter.rules[0].limit=5",
					"ratelimit.filter.rules[0].window=1m", "ratelimit.filter.rules[0].failure-policy=fail-local",
					"ratelimit.filter.rules[1].name=bucket-rule", "ratelimit.filter.rules[1].paths=/share",
					"ratelimit.filter.rules[1].algorithm=token-bucket", "ratelimit.filter.rules[1].limit=10",
					"ratelimit.filter.rules[1].capacity=7", "ratelimit.filter.rules[1].window=1m",
					"ratelimit.filter.rules[1].failure-policy=FAIL_LOCAL", "ratelimit.filter.rules[2].name=open-rule",
					"ratelimit.filter.rules[2].paths=/share", "ratelimit.filter.rules[2].limit=5",
					"ratelimit.filter.rules[2].window=1m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				List<ConfiguredLimit> rules = context.getBean(LimitConfigurations.class).current().rules()
					.matching("GET", PathContainer.parsePath("/share"));
				assertThat(rules).extracting(ConfiguredLimit::name)
					.containsExactly("share-rule", "bucket-rule", "open-rule");
				assertThat(rules).extracting(ConfiguredLimit::failurePolicy)
					.containsExactly(FailurePolicy.FAIL_LOCAL, FailurePolicy.FAIL_LOCAL, FailurePolicy.FAIL_OPEN);
				// 5 / 2, rounded down; the limit itself is unchanged.
				assertThat(rules.get(0).request().definition().limit()).isEqualTo(5);
				assertShare(rules.get(0).localShare(), "share-rule", 2, 2);
				// A token bucket's capacity is shared too: 10 / 2 and 7 / 2.
				assertShare(rules.get(1).localShare(), "bucket-rule", 5, 3);
				assertThat(rules.get(2).localShare()).isNull();
				List<ConfiguredLimit> annotated = context.getBean(RateLimitedMethodRegistry.class)
					.limitsFor(ShareController.class.getDeclaredMethod("share"), ShareController.class);
				assertThat(annotated).singleElement().satisfies((limit) -> {
					assertThat(limit.failurePolicy()).isEqualTo(FailurePolicy.FAIL_LOCAL);
					assertThat(limit.request().definition().limit()).isEqualTo(9);
					assertShare(limit.localShare(), "share-annotated", 4, 4);
				});
			});
	}

	@Test
	void failLocalIsTheDefaultPolicyWhenConfigured() {
		this.contextRunner
			.withPropertyValues("ratelimit.defaults.failure-policy=fail-local", "ratelimit.filter.rules[0].paths=/any",
					"ratelimit.filter.rules[0].limit=3")
			.run((context) -> assertThat(
					context.getBean(LimitConfigurations.class).current().rules().matching("GET", PathContainer.parsePath("/any")))
				.singleElement()
				.satisfies((limit) -> {
					assertThat(limit.failurePolicy()).isEqualTo(FailurePolicy.FAIL_LOCAL);
					// One instance: the whole limit.
					assertShare(limit.localShare(), "/any", 3, 3);
				}));
	}

	@Test
	void unknownAnnotationPolicyListsFailLocal() {
		this.contextRunner.withUserConfiguration(RateLimitedMethodsAutoConfigurationTests.UnknownFailurePolicyController.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure().getMessage()).contains("fail-sometimes")
					.contains("fail-open")
					.contains("fail-closed")
					.contains("fail-local");
			});
	}

	@Test
	void unknownRulePolicyFailsNamingThePropertyAndListingFailLocal(CapturedOutput output) {
		String[] rule = { "ratelimit.filter.rules[0].paths=/any", "ratelimit.filter.rules[0].failure-policy=fail-sometimes" };
		assertStartupFailsNaming("ratelimit.filter.rules[0].failure-policy", rule);
		assertThatException().isThrownBy(() -> startApplication(
				"--ratelimit.filter.rules[0].paths=/any", "--ratelimit.filter.rules[0].failure-policy=fail-sometimes"));
		assertThat(output).contains("Failed to bind properties under 'ratelimit.filter.rules[0].failure-policy'")
			.contains("The following values are valid:");
		assertThat(output.toString().substring(output.toString().lastIndexOf("The following values are valid:")))
			.contains("FAIL_OPEN")
			.contains("FAIL_CLOSED")
			.contains("FAIL_LOCAL");
	}

	// --- Helpers

	/** Decides against a fresh limit of 2 per hour: two admitted, the third denied. */
	private static void assertDecides(RateLimiter limiter) {
		LimitDefinition limit = LimitDefinition.of("decides", Algorithm.FIXED_WINDOW, 2, Duration.ofHours(1));
		String client = "client-" + System.nanoTime();
		assertThat(limiter.tryAcquire(client, limit).allowed()).isTrue();
		assertThat(limiter.tryAcquire(client, limit).allowed()).isTrue();
		assertThat(limiter.tryAcquire(client, limit).allowed()).isFalse();
	}

	private static void assertShare(LimitRequest share, String name, long limit, long capacity) {
		assertThat(share).isNotNull();
		assertThat(share.name()).isEqualTo(name);
		assertThat(share.definition().limit()).isEqualTo(limit);
		assertThat(share.definition().capacity()).isEqualTo(capacity);
	}

	private void assertStartupFailsNaming(String property, String... properties) {
		this.contextRunner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(RateLimitAutoConfigurationTests.failedProperty(context.getStartupFailure()))
				.as(RateLimitAutoConfigurationTests.messages(context.getStartupFailure()))
				.isEqualTo(property);
		});
	}

	private void assertRuleFails(String[] rule, String instances) {
		this.contextRunner.withPropertyValues(rule).withPropertyValues(instances).run((context) -> {
			assertThat(context).hasFailed();
			String messages = RateLimitAutoConfigurationTests.messages(context.getStartupFailure());
			assertThat(RateLimitAutoConfigurationTests.failedProperty(context.getStartupFailure())).as(messages)
				.isEqualTo("ratelimit.filter.rules[0].failure-policy");
			assertThat(messages).contains("'scarce-rule'").contains("ratelimit.fail-local.instances")
				.doesNotContain("Rule@");
		});
	}

	/** A whole, non-web application, as a user starts it: Boot prints what stopped it. */
	private static void startApplication(String... args) {
		String[] all = new String[args.length + 2];
		all[0] = "--spring.data.redis.host=127.0.0.1";
		all[1] = "--spring.data.redis.port=1";
		System.arraycopy(args, 0, all, 2, args.length);
		new SpringApplicationBuilder(MinimalApplication.class).web(WebApplicationType.NONE).run(all).close();
	}

	// --- Test beans

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class MinimalApplication {

	}

	@RestController
	static class ShareController {

		@RateLimited(name = "share-annotated", limit = 9, window = "1m", failurePolicy = "fail-local")
		@GetMapping("/share")
		String share() {
			return "ok";
		}

	}

	@RestController
	static class ScarceAnnotationController {

		@RateLimited(name = "scarce-annotated", limit = 4, cost = 3, window = "1m", failurePolicy = "fail-local")
		@GetMapping("/scarce")
		String scarce() {
			return "ok";
		}

	}

}
