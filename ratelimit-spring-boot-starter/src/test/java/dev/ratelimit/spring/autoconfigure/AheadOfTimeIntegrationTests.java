package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

/**
 * The starter in applications processed ahead of time, as {@code spring-boot:process-aot} does before every native
 * image: the context is refreshed for AOT processing, its bean definitions generated as code, compiled
 * ({@link TestCompiler}) and run from the generated initializer in a new context, as
 * {@code -Dspring.aot.enabled=true} runs them. The same rules hold as on the JVM: Boot's own connection factory
 * (Lettuce or Jedis) is the application's Redis, an application's own factory needs {@code ratelimit.redis.url}.
 *
 * <p>
 * The forked class loader lets the generated code reach package-private classes (Boot's connection
 * configurations, these tests' configurations), as in an application where it is compiled into the same packages.
 */
@CompileWithForkedClassLoader
class AheadOfTimeIntegrationTests {

	private static final TestRedis redis = TestRedis.shared();

	// --- Which connection factory is the application's own

	@Test
	void bootsLettuceConnectionFactoryIsTheApplicationsRedis() {
		run(BootsConnectionFactory.class, properties(), (context) -> {
			assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(LettuceConnectionFactory.class);
			assertDecides(context.getBean(RateLimiter.class));
		});
	}

	@Test
	void bootsJedisConnectionFactoryIsTheApplicationsRedis() {
		run(BootsConnectionFactory.class, properties("spring.data.redis.client-type=jedis"), (context) -> {
			assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
			assertDecides(context.getBean(RateLimiter.class));
		});
	}

	@Test
	void applicationsOwnConnectionFactoryWithoutLimiterUrlFailsNamingTheProperty() {
		Throwable failure = failure(OwnConnectionFactory.class, properties());
		assertThat(RateLimitAutoConfigurationTests.failedProperty(failure)).as(messages(failure))
			.isEqualTo("ratelimit.redis.url");
		assertThat(messages(failure)).contains("'ownRedisConnectionFactory'");
	}

	@Test
	void applicationsOwnConnectionFactoryWithLimiterUrlStarts() {
		run(OwnConnectionFactory.class, properties("ratelimit.redis.url=" + redis.url()),
				(context) -> assertDecides(context.getBean(RateLimiter.class)));
	}

	// --- Condition properties, decided when processing

	@Test
	void storeChangedSinceProcessingStopsStartupNamingIt() {
		Throwable failure = failure(BootsConnectionFactory.class, properties(), properties("ratelimit.store=in-memory"));
		assertThat(RateLimitAutoConfigurationTests.failedProperty(failure)).as(messages(failure))
			.isEqualTo("ratelimit.store");
		assertThat(messages(failure)).contains("process-aot").contains("ratelimit.store=redis").contains("in-memory");
	}

	@Test
	void disabledSinceProcessingStopsStartupNamingIt() {
		Throwable failure = failure(BootsConnectionFactory.class, properties(), properties("ratelimit.enabled=false"));
		assertThat(RateLimitAutoConfigurationTests.failedProperty(failure)).as(messages(failure))
			.isEqualTo("ratelimit.enabled");
	}

	@Test
	void enabledSinceProcessingDisabledStopsStartupNamingIt() {
		Throwable failure = failure(BootsConnectionFactory.class, properties("ratelimit.enabled=false"), properties());
		assertThat(RateLimitAutoConfigurationTests.failedProperty(failure)).as(messages(failure))
			.isEqualTo("ratelimit.enabled");
	}

	@Test
	void filterEnabledSinceProcessingWithoutFilterStopsStartupNamingIt() {
		Throwable failure = failure(BootsConnectionFactory.class, properties("ratelimit.filter.enabled=false"),
				properties());
		assertThat(RateLimitAutoConfigurationTests.failedProperty(failure)).as(messages(failure))
			.isEqualTo("ratelimit.filter.enabled");
	}

	@Test
	void theSameOutcomesWrittenOtherwiseStart() {
		run(BootsConnectionFactory.class, properties(),
				properties("ratelimit.store=REDIS", "ratelimit.enabled=TRUE", "ratelimit.filter.enabled=true"),
				(context) -> assertDecides(context.getBean(RateLimiter.class)));
	}

	@Test
	void processedAndRunInMemoryCountsInMemory() {
		run(BootsConnectionFactory.class, properties("ratelimit.store=in-memory"), (context) -> {
			assertThat(context.getBean(RateLimiter.class)).isInstanceOf(InMemoryRateLimiter.class);
			assertDecides(context.getBean(RateLimiter.class));
		});
	}

	@Test
	void processedAndRunDisabledHasNoLimiter() {
		run(BootsConnectionFactory.class, properties("ratelimit.enabled=false"),
				(context) -> assertThat(context.getBeanNamesForType(RateLimiter.class)).isEmpty());
	}

	// --- Hints for a native image, as processing an application registers them

	@Test
	void processingRegistersTheHintsOfTheLimitedBeansTheScriptsAndTheProperties() {
		RuntimeHints hints = processedHints(LimitedService.class, properties());
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/ratelimit/core/scripts/rate_limit.lua"))
			.as("the Lua scripts (the starter's registrar, from aot.factories)")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LimitedService.class, "call"))
			.as("the @RateLimited method (@Reflective)")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).as("its argument, for key expressions")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of(LimitedService.class.getName() + "$$SpringCGLIB$$0")))
			.as("the CGLIB proxy that applies the limit, generated when processing (Spring's own)")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitProperties.class, "setStore"))
			.as("the properties' binding (Spring Boot's)")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(FilterProperties.class, "setEnabled")).as("nested properties too")
			.accepts(hints);
	}

	@Test
	void theLimitedBeanIsProxiedFromTheClassGeneratedWhenProcessing() {
		run(LimitedService.class, properties(), (context) -> {
			LimitedService service = context.getBean(LimitedService.class);
			assertThat(service.getClass().getName()).isEqualTo(LimitedService.class.getName() + "$$SpringCGLIB$$0");
			Order order = new Order("aot-" + System.nanoTime());
			assertThat(service.call(order)).isEqualTo("called");
			assertThat(catchThrowable(() -> service.call(order)))
				.isInstanceOf(RateLimitExceededException.class);
		});
	}

	// --- Helpers

	/** The application's properties: Boot's Redis properties, and a timeout that a loaded machine cannot reach. */
	static List<String> properties(String... more) {
		List<String> properties = new ArrayList<>(
				List.of("spring.data.redis.url=" + redis.url(), "ratelimit.redis.timeout=10s"));
		properties.addAll(List.of(more));
		return properties;
	}

	/** Processes {@code application} ahead of time with {@code properties}, and runs it with the same. */
	static void run(Class<?> application, List<String> properties, Consumer<GenericApplicationContext> running) {
		run(application, properties, properties, running);
	}

	/**
	 * Processes {@code application} ahead of time with {@code buildProperties}, compiles the generated code, and
	 * runs it with {@code runProperties}: {@code running} gets the refreshed context.
	 */
	static void run(Class<?> application, List<String> buildProperties, List<String> runProperties,
			Consumer<GenericApplicationContext> running) {
		Throwable failure = start(application, buildProperties, runProperties, running);
		if (failure != null) {
			fail("The application processed ahead of time did not start:\n" + messages(failure), failure);
		}
	}

	/** The startup failure of {@code application} processed ahead of time and run with the same properties. */
	static Throwable failure(Class<?> application, List<String> properties) {
		return failure(application, properties, properties);
	}

	static Throwable failure(Class<?> application, List<String> buildProperties, List<String> runProperties) {
		Throwable failure = start(application, buildProperties, runProperties,
				(context) -> fail("The application processed ahead of time started"));
		assertThat(failure).as("the startup failure").isNotNull();
		return failure;
	}

	/** The hints that processing {@code application} ahead of time registers. */
	static RuntimeHints processedHints(Class<?> application, List<String> properties) {
		TestGenerationContext generationContext = new TestGenerationContext();
		try (GenericApplicationContext processed = new GenericApplicationContext()) {
			AnnotationConfigUtils.registerAnnotationConfigProcessors(processed);
			TestPropertyValues.of(properties).applyTo(processed);
			processed.registerBean(application);
			new ApplicationContextAotGenerator().processAheadOfTime(processed, generationContext);
		}
		return generationContext.getRuntimeHints();
	}

	private static Throwable start(Class<?> application, List<String> buildProperties, List<String> runProperties,
			Consumer<GenericApplicationContext> running) {
		TestGenerationContext generationContext = new TestGenerationContext();
		ClassName initializer;
		try (GenericApplicationContext processed = new GenericApplicationContext()) {
			AnnotationConfigUtils.registerAnnotationConfigProcessors(processed);
			TestPropertyValues.of(buildProperties).applyTo(processed);
			processed.registerBean(application);
			initializer = new ApplicationContextAotGenerator().processAheadOfTime(processed, generationContext);
		}
		generationContext.writeGeneratedContent();
		Throwable[] failure = new Throwable[1];
		TestCompiler.forSystem().with(generationContext).compile((compiled) -> {
			GenericApplicationContext context = new GenericApplicationContext();
			TestPropertyValues.of(runProperties).applyTo(context);
			@SuppressWarnings("unchecked")
			ApplicationContextInitializer<GenericApplicationContext> generated = compiled
				.getInstance(ApplicationContextInitializer.class, initializer.toString());
			try {
				generated.initialize(context);
				context.refresh();
			}
			catch (RuntimeException ex) {
				failure[0] = ex;
				context.close();
				return;
			}
			try {
				running.accept(context);
			}
			finally {
				context.close();
			}
		});
		return failure[0];
	}

	static String messages(Throwable failure) {
		return RateLimitAutoConfigurationTests.messages(failure);
	}

	private static void assertDecides(RateLimiter limiter) {
		LimitDefinition limit = LimitDefinition.of("aot-" + System.nanoTime(), Algorithm.FIXED_WINDOW, 1,
				Duration.ofHours(1));
		assertThat(limiter.tryAcquire("client", limit).allowed()).isTrue();
		assertThat(limiter.tryAcquire("client", limit).allowed()).isFalse();
	}

	/** An application with Boot's Redis auto-configuration and the starter, and no connection factory of its own. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
			RateLimitedMethodsAutoConfiguration.class, AopAutoConfiguration.class })
	static class BootsConnectionFactory {

	}

	/** A service of the application whose method is limited, outside HTTP requests: 1 per hour per order. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
			RateLimitedMethodsAutoConfiguration.class, AopAutoConfiguration.class })
	static class LimitedService {

		@RateLimited(limit = 1, window = "1h", key = "#order.id()")
		public String call(Order order) {
			return "called";
		}

	}

	/** An argument that a key expression reads. */
	record Order(String id) {

	}

	/** The same with a connection factory of the application's own, so Boot creates none. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
			RateLimitedMethodsAutoConfiguration.class, AopAutoConfiguration.class })
	static class OwnConnectionFactory {

		@Bean
		LettuceConnectionFactory ownRedisConnectionFactory() {
			return new LettuceConnectionFactory(redis.host(), redis.port());
		}

	}

}
