package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.ratelimit.spring.autoconfigure.RateLimitAutoConfigurationTests.messages;

/**
 * Tests for {@link RateLimitedMethodsAutoConfiguration}: {@code @RateLimited} methods are advised, and an annotation
 * that could not be applied, or is invalid, stops the application at startup naming the method. On a Redis where
 * nothing listens ({@link WithoutRedis}): building the beans connects nothing, and no test here needs or waits for a
 * Redis.
 */
class RateLimitedMethodsAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = WithoutRedis.servlet();

	private final ApplicationContextRunner nonWebContextRunner = WithoutRedis.nonWeb();

	// --- Annotated methods are advised, or startup stops

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
	void anInvalidMaxWaitStopsStartupNamingTheMethod() {
		this.nonWebContextRunner.withBean(BadMaxWait.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("BadMaxWait.call(")
				.contains("maxWait '5' has no unit");
		});
	}

	static class BadMaxWait {

		@dev.ratelimit.spring.RateLimited(limit = 1, window = "1h", maxWait = "5")
		public String call() {
			return "called";
		}

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

	// --- Helpers

	private void assertAnnotationFailsNaming(Class<?> controller, String method) {
		this.contextRunner.withUserConfiguration(controller).run((context) -> {
			assertThat(context).hasFailed();
			// In the failure's own message, as Boot prints it, not in a cause deep under an AOP failure.
			assertThat(context.getStartupFailure().getMessage()).contains(controller.getName() + "." + method + "(");
		});
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

}
