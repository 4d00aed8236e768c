package dev.ratelimit.spring.autoconfigure;

import java.util.List;

import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.PlanSelector;
import dev.ratelimit.spring.limits.FilterRuleMatcher;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.server.PathContainer;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans and modes are checked at startup like every limit: a mistake stops the application naming the property or
 * the method. The in-memory store keeps these tests free of Redis.
 */
class PlanAndModeConfigurationTests {

	private static final String[] RULE = { "ratelimit.filter.rules[0].name=reports",
			"ratelimit.filter.rules[0].paths=/reports/**", "ratelimit.filter.rules[0].limit=10",
			"ratelimit.filter.rules[0].cost=3" };

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(StarterAutoConfigurations.all())
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
				DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
		.withPropertyValues("ratelimit.store=in-memory")
		.withPropertyValues(RULE);

	@Test
	void validPlansStart() {
		this.contextRunner
			.withPropertyValues("ratelimit.plans.free.reports.limit=5", "ratelimit.plans.pro.reports.limit=50",
					"ratelimit.plans.pro.reports.algorithm=sliding-window-counter", "ratelimit.plans.pro.reports.window=1h",
					"ratelimit.plan.default-plan=free", "ratelimit.plan.expression=#request.getHeader('X-Plan')")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PlanSelector plans = context.getBean(LimitConfigurations.class).current().plans();
				assertThat(plans.names()).containsExactly("free", "pro");
				ConfiguredLimit rule = onlyRule(context.getBean(LimitConfigurations.class).current().rules());
				assertThat(rule.forPlan("free").request().definition().limit()).isEqualTo(5);
				assertThat(rule.forPlan("pro").request().definition().limit()).isEqualTo(50);
				assertThat(rule.forPlan("pro").request().definition().windowMs()).isEqualTo(3_600_000);
				// The cost stays the rule's own.
				assertThat(rule.forPlan("pro").request().cost()).isEqualTo(3);
			});
	}

	@Test
	void aDefaultPlanThatIsNoPlanFails() {
		assertFails("ratelimit.plan.default-plan", "ratelimit.plans.free.reports.limit=5",
				"ratelimit.plan.default-plan=gold");
	}

	@Test
	void aPlanExpressionWithoutPlansFails() {
		assertFails("ratelimit.plan.expression", "ratelimit.plan.expression=#request.getHeader('X-Plan')");
	}

	@Test
	void aPlanExpressionThatIsNotValidFails() {
		assertFails("ratelimit.plan.expression", "ratelimit.plans.free.reports.limit=5",
				"ratelimit.plan.expression=@noSuchBean.plan(#request)");
		assertFails("ratelimit.plan.expression", "ratelimit.plans.free.reports.limit=5",
				"ratelimit.plan.expression=#request.getHeader(");
	}

	@Test
	void aPlanShapeThatCannotTakeTheLimitsCostFailsNamingThePlan() {
		assertFails("ratelimit.plans.free.reports", "ratelimit.plans.free.reports.limit=2");
	}

	@Test
	void anInvalidPlanShapeFailsNamingItsProperty() {
		assertFails("ratelimit.plans.pro.reports.limit", "ratelimit.plans.pro.reports.limit=0");
		assertFails("ratelimit.plans.pro.reports.capacity", "ratelimit.plans.pro.reports.algorithm=fixed-window",
				"ratelimit.plans.pro.reports.capacity=7");
	}

	@Test
	void aPlanThatNamesNoLimitFails() {
		assertFails("ratelimit.plans.free.repots", "ratelimit.plans.free.reports.limit=5",
				"ratelimit.plans.free.repots.limit=5");
		// An annotation's limit is known too.
		this.contextRunner.withUserConfiguration(PlannedAnnotationController.class)
			.withPropertyValues("ratelimit.plans.free.planned.limit=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aTypoInsideAPlanFails() {
		assertFails("ratelimit.plans.free.reports.limt", "ratelimit.plans.free.reports.limt=5");
	}

	@Test
	void theDefaultModeAppliesToEveryLimitWithoutItsOwn() {
		this.contextRunner.withPropertyValues("ratelimit.defaults.mode=shadow")
			.run((context) -> assertThat(onlyRule(context.getBean(LimitConfigurations.class).current().rules()).shadow()).isTrue());
		this.contextRunner.withPropertyValues("ratelimit.defaults.mode=shadow", "ratelimit.filter.rules[0].mode=enforce")
			.run((context) -> assertThat(onlyRule(context.getBean(LimitConfigurations.class).current().rules()).shadow()).isFalse());
		this.contextRunner.run((context) -> assertThat(onlyRule(context.getBean(LimitConfigurations.class).current().rules()).shadow()).isFalse());
	}

	@Test
	void anUnknownModeFails() {
		assertFails("ratelimit.filter.rules[0].mode", "ratelimit.filter.rules[0].mode=dry");
		this.contextRunner.withUserConfiguration(UnknownModeController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure().getMessage()).contains(UnknownModeController.class.getName() + ".dry(")
				.contains("unknown mode 'dry'");
		});
	}

	@Test
	void limitsSharingANameMustAgreeOnTheirMode() {
		this.contextRunner.withUserConfiguration(ShadowReportsController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(RateLimitAutoConfigurationTests.messages(context.getStartupFailure())).contains("'reports'")
				.contains("in shadow mode");
		});
	}

	private void assertFails(String property, String... properties) {
		this.contextRunner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(RateLimitAutoConfigurationTests.messages(context.getStartupFailure())).contains(property);
		});
	}

	private static ConfiguredLimit onlyRule(FilterRuleMatcher rules) {
		List<ConfiguredLimit> limits = rules.matching("GET", PathContainer.parsePath("/reports/x"));
		assertThat(limits).hasSize(1);
		return limits.get(0);
	}

	@RestController
	static class UnknownModeController {

		@RateLimited(limit = 5, mode = "dry")
		@GetMapping("/dry")
		public String dry() {
			return "dry";
		}

	}

	@RestController
	static class PlannedAnnotationController {

		@RateLimited(name = "planned", limit = 10)
		@GetMapping("/planned")
		public String planned() {
			return "planned";
		}

	}

	@RestController
	static class ShadowReportsController {

		@RateLimited(name = "reports", limit = 10, cost = 3, mode = "shadow")
		@GetMapping("/shadow-reports")
		public String reports() {
			return "reports";
		}

	}

}
