package dev.ratelimit.spring.limits;

import java.lang.reflect.Method;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.autoconfigure.RateLimitProperties;
import dev.ratelimit.spring.autoconfigure.PlanLimitProperties;
import dev.ratelimit.spring.autoconfigure.FilterRuleProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link LimitResolver} on its own: annotations, rules, defaults, plans and fail-local shares turned into limits, and
 * every invalid value rejected with the property or the method named. No application context and no Redis: the
 * configuration is a plain {@link RateLimitProperties}.
 */
class LimitResolverTests {

	private final RateLimitProperties properties = new RateLimitProperties();

	private final MockEnvironment environment = new MockEnvironment();

	private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

	@Test
	void unsetAttributesOfAnAnnotationTakeTheDefaults() throws Exception {
		this.properties.getDefaults().setAlgorithm(Algorithm.SLIDING_LOG);
		this.properties.getDefaults().setLimit(7);
		this.properties.getDefaults().setWindow(Duration.ofSeconds(30));
		this.properties.getDefaults().setFailurePolicy(FailurePolicy.FAIL_CLOSED);

		ConfiguredLimit limit = fromAnnotation("named");

		assertThat(limit.name()).isEqualTo("orders");
		assertThat(limit.request().definition().algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
		assertThat(limit.request().definition().limit()).isEqualTo(7);
		assertThat(limit.request().definition().window()).isEqualTo(Duration.ofSeconds(30));
		assertThat(limit.request().definition().capacity()).as("capacity equals the limit outside the token bucket").isEqualTo(7);
		assertThat(limit.failurePolicy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
		assertThat(limit.key()).as("by IP address").isNull();
		assertThat(limit.explicitName()).isTrue();
	}

	@Test
	void anAnnotationsAttributesResolvePlaceholdersAndOverrideTheDefaults() throws Exception {
		this.environment.setProperty("orders.window", "2m");

		ConfiguredLimit limit = fromAnnotation("shaped");

		assertThat(limit.name()).isEqualTo("Api.shaped");
		assertThat(limit.explicitName()).isFalse();
		assertThat(limit.request().definition().algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
		assertThat(limit.request().definition().limit()).isEqualTo(10);
		assertThat(limit.request().definition().capacity()).isEqualTo(25);
		assertThat(limit.request().definition().window()).isEqualTo(Duration.ofMinutes(2));
		assertThat(limit.maxWait()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void aTokenBucketWithoutCapacityTakesTheDefaultCapacityElseItsLimit() throws Exception {
		assertThat(fromAnnotation("bucket").request().definition().capacity()).isEqualTo(10);
		this.properties.getDefaults().setCapacity(40L);
		assertThat(fromAnnotation("bucket").request().definition().capacity()).isEqualTo(40);
	}

	@Test
	void aKeyThatReadsTheArgumentsIsDecidedOnTheCall() throws Exception {
		ConfiguredLimit byArgument = fromAnnotation("byArgument", String.class);
		assertThat(byArgument.readsArguments()).isTrue();
		assertThat(byArgument.decidedOnCall()).isTrue();
		ConfiguredLimit byRequest = fromAnnotation("byRequest");
		assertThat(byRequest.readsArguments()).isFalse();
		assertThat(byRequest.key().getExpressionString()).isEqualTo("#request.remoteAddr");
	}

	@Test
	void anAnnotationsInvalidValuesAreRejectedNamingTheMethod() {
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("windowWithoutUnit"))
			.withMessageStartingWith("Invalid Api.windowWithoutUnit: window '60' has no unit");
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("unknownVariable", String.class))
			.withMessageContaining("reads #usernme, which is not defined; known are username");
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("unknownBean"))
			.withMessageContaining("refers to bean 'plans', which does not exist");
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("notAStatus"))
			.withMessageContaining("chargeOnStatus 600 is not an HTTP status");
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("unknownAlgorithm"))
			.withMessageContaining("unknown algorithm 'leaky-bucket'");
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("negativeMaxWait"))
			.withMessageContaining("maxWait '-1s' is negative");
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("costAboveLimit"))
			.withMessageContaining("cost 11 of rate limit 'Api.costAboveLimit' exceeds its limit 10");
	}

	@Test
	void aRuleWithoutANameIsNamedAfterItsFirstPathWithVariablesAsStars() {
		FilterRuleProperties rule = rule("/users/{id}/orders", "/other");
		assertThat(resolver().fromRule(rule, "ratelimit.filter.rules[0]").name()).isEqualTo("/users/*/orders");
	}

	@Test
	void aRulesInvalidValuesAreRejectedNamingTheProperty() {
		assertThat(ruleError(rule()).getName()).isEqualTo("ratelimit.filter.rules[0].paths");
		FilterRuleProperties zeroLimit = rule("/api/**");
		zeroLimit.setLimit(0L);
		assertThat(ruleError(zeroLimit).getName()).isEqualTo("ratelimit.filter.rules[0].limit");
		FilterRuleProperties capacity = rule("/api/**");
		capacity.setAlgorithm(Algorithm.FIXED_WINDOW);
		capacity.setCapacity(5L);
		assertThat(ruleError(capacity).getName()).isEqualTo("ratelimit.filter.rules[0].capacity");
		FilterRuleProperties key = rule("/api/**");
		key.setKey("#username");
		InvalidConfigurationPropertyValueException keyError = ruleError(key);
		assertThat(keyError.getName()).isEqualTo("ratelimit.filter.rules[0].key");
		assertThat(keyError.getMessage()).contains("a filter rule's key can read #request, #principal");
	}

	@Test
	void aRuleWithAPeriodIsAFixedWindowOfCalendarPeriodsInItsZone() {
		FilterRuleProperties daily = rule("/api/**");
		daily.setLimit(1000L);
		daily.setPeriod(CalendarPeriod.Unit.DAY);
		daily.setZone(ZoneId.of("Europe/Berlin"));
		LimitDefinition definition = resolver().fromRule(daily, "ratelimit.filter.rules[0]").request().definition();
		assertThat(definition.algorithm()).as("the defaults' token bucket gives way to the fixed window")
			.isEqualTo(Algorithm.FIXED_WINDOW);
		assertThat(definition.calendar()).isEqualTo(CalendarPeriod.of(CalendarPeriod.Unit.DAY, ZoneId.of("Europe/Berlin")));
		assertThat(definition.window()).isEqualTo(Duration.ofDays(1));

		FilterRuleProperties bucket = rule("/api/**");
		bucket.setAlgorithm(Algorithm.TOKEN_BUCKET);
		bucket.setPeriod(CalendarPeriod.Unit.MONTH);
		InvalidConfigurationPropertyValueException bucketError = ruleError(bucket);
		assertThat(bucketError.getName()).isEqualTo("ratelimit.filter.rules[0].period");
		assertThat(bucketError.getMessage())
			.contains("counts calendar periods (month), which only the fixed-window algorithm takes, not token-bucket");
		FilterRuleProperties both = rule("/api/**");
		both.setWindow(Duration.ofHours(1));
		both.setPeriod(CalendarPeriod.Unit.DAY);
		assertThat(ruleError(both).getName()).isEqualTo("ratelimit.filter.rules[0].period");
		FilterRuleProperties zoneOnly = rule("/api/**");
		zoneOnly.setZone(ZoneId.of("Europe/Berlin"));
		assertThat(ruleError(zoneOnly).getName()).isEqualTo("ratelimit.filter.rules[0].zone");
	}

	@Test
	void anAnnotationAndAPlanSetCalendarPeriodsAndAWindowOverrideEndsThem() throws Exception {
		this.environment.setProperty("tenant.zone", "America/New_York");
		ConfiguredLimit weekly = fromAnnotation("weekly");
		assertThat(weekly.request().definition().calendar())
			.isEqualTo(new CalendarPeriod(CalendarPeriod.Unit.WEEK, ZoneId.of("America/New_York"), DayOfWeek.SUNDAY));
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("calendarBucket"))
			.withMessageContaining("only the fixed-window algorithm takes");

		PlanLimitProperties monthly = planLimit(100_000);
		monthly.setPeriod(CalendarPeriod.Unit.MONTH);
		this.properties.setPlans(Map.of("free", Map.of("orders", planLimit(10)), "pro", Map.of("orders", monthly)));
		ConfiguredLimit planned = fromAnnotation("named");
		assertThat(planned.forPlan("pro").request().definition().calendar()).isEqualTo(CalendarPeriod.of(CalendarPeriod.Unit.MONTH));
		assertThat(planned.forPlan("pro").request().definition().algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
		assertThat(planned.forPlan("free").request().definition().calendar()).isNull();

		// a plan that sets only the zone of a limit's own period keeps its unit
		PlanLimitProperties tokyo = planLimit(5);
		tokyo.setZone(ZoneId.of("Asia/Tokyo"));
		this.properties.setPlans(Map.of("free", Map.of("Api.weekly", planLimit(10)), "pro", Map.of("Api.weekly", tokyo)));
		this.environment.setProperty("tenant.zone", "America/New_York");
		assertThat(fromAnnotation("weekly").forPlan("pro").request().definition().calendar())
			.isEqualTo(new CalendarPeriod(CalendarPeriod.Unit.WEEK, ZoneId.of("Asia/Tokyo"), DayOfWeek.SUNDAY));
		assertThat(tokyo).hasToString("{limit=5, zone=Asia/Tokyo}");

		LimitShape calendar = LimitShape.of(this.properties.getDefaults()).with(monthly);
		assertThat(LimitOverride.of(null, 5L, null, null, null, null).applyTo(calendar).calendar())
			.as("an override of the limit keeps the period").isEqualTo(calendar.calendar());
		assertThat(LimitOverride.of(null, null, "1h", null, null, null).applyTo(calendar).calendar())
			.as("an override of the window replaces it").isNull();
	}

	@Test
	void aRulesErrorNamesTheRuleAsWellAsItsProperty() {
		FilterRuleProperties named = rule("/api/**");
		named.setName("api");
		named.setLimit(0L);
		FilterRuleProperties unnamed = rule("/reports/**", "/exports/**");
		unnamed.setKey("#username");
		InvalidConfigurationPropertyValueException namedError = matcherError(rule("/ok/**"), named);
		assertThat(namedError.getName()).isEqualTo("ratelimit.filter.rules[1].limit");
		assertThat(namedError.getReason()).startsWith("In the filter rule 'api': limit of rate limit 'api' must be at least 1");
		InvalidConfigurationPropertyValueException unnamedError = matcherError(unnamed);
		assertThat(unnamedError.getName()).isEqualTo("ratelimit.filter.rules[0].key");
		assertThat(unnamedError.getReason()).startsWith("In the filter rule of /reports/**, /exports/**: ");
		assertThat(matcherError(rule()).getReason()).startsWith("In a filter rule without name or paths: ");
	}

	@Test
	void aRuleWithChargeOnStatusIsChargedByOutcomeOnThoseStatusesOnly() {
		FilterRuleProperties rule = rule("/admin/**");
		rule.setChargeOnStatus(List.of(401, 403));
		ConfiguredLimit limit = resolver().fromRule(rule, "ratelimit.filter.rules[0]");
		assertThat(limit.chargedByOutcome()).isTrue();
		assertThat(limit.decidedOnCall()).isTrue();
		assertThat(limit.chargedOnStatus(401)).isTrue();
		assertThat(limit.chargedOnStatus(403)).isTrue();
		assertThat(limit.chargedOnStatus(200)).isFalse();
		assertThat(resolver().fromRule(rule("/admin/**"), "ratelimit.filter.rules[1]").chargedByOutcome()).isFalse();
	}

	@Test
	void aRuleWithChargeOnStatusRejectsANonStatusAndAKeyThatReadsThePrincipal() {
		FilterRuleProperties notAStatus = rule("/admin/**");
		notAStatus.setChargeOnStatus(List.of(401, 4010));
		InvalidConfigurationPropertyValueException statusError = ruleError(notAStatus);
		assertThat(statusError.getName()).isEqualTo("ratelimit.filter.rules[0].charge-on-status");
		assertThat(statusError.getMessage()).contains("chargeOnStatus 4010 is not an HTTP status");
		FilterRuleProperties principal = rule("/admin/**");
		principal.setChargeOnStatus(List.of(401));
		principal.setKey("#principal?.name");
		InvalidConfigurationPropertyValueException keyError = ruleError(principal);
		assertThat(keyError.getName()).isEqualTo("ratelimit.filter.rules[0].key");
		assertThat(keyError.getMessage()).contains("reads #principal")
			.contains("decided before Spring Security authenticates the request");
		// charged on arrival, after Security: the principal is there
		FilterRuleProperties onArrival = rule("/admin/**");
		onArrival.setKey("#principal?.name");
		assertThat(resolver().fromRule(onArrival, "ratelimit.filter.rules[0]").key()).isNotNull();
	}

	@Test
	void aRuleWaitsItsMaxWaitAndRefusesANegativeOneAndOneChargedAfterTheResponse() {
		FilterRuleProperties waits = rule("/uploads/**");
		waits.setMaxWait(Duration.ofSeconds(5));
		assertThat(resolver().fromRule(waits, "ratelimit.filter.rules[0]").maxWait()).isEqualTo(Duration.ofSeconds(5));
		assertThat(resolver().fromRule(rule("/uploads/**"), "ratelimit.filter.rules[0]").maxWait()).isNull();
		FilterRuleProperties negative = rule("/uploads/**");
		negative.setMaxWait(Duration.ofSeconds(-1));
		assertThat(ruleError(negative).getName()).isEqualTo("ratelimit.filter.rules[0].max-wait");
		FilterRuleProperties byStatus = rule("/login");
		byStatus.setChargeOnStatus(List.of(401));
		byStatus.setMaxWait(Duration.ofSeconds(1));
		assertThat(ruleError(byStatus)).satisfies((error) -> {
			assertThat(error.getName()).isEqualTo("ratelimit.filter.rules[0].max-wait");
			assertThat(error.getMessage()).contains("charge-on-status or settle-cost-header");
		});
		FilterRuleProperties settled = rule("/metered/**");
		settled.setSettleCostHeader("X-Bytes-Sent");
		settled.setMaxWait(Duration.ofSeconds(1));
		assertThat(ruleError(settled).getName()).isEqualTo("ratelimit.filter.rules[0].max-wait");
	}

	@Test
	void aRuleWithACostHeaderIsSettledAndRefusesChargeOnStatusAndABadName() {
		FilterRuleProperties metered = rule("/metered/**");
		metered.setSettleCostHeader("X-Bytes-Sent");
		ConfiguredLimit limit = resolver().fromRule(metered, "ratelimit.filter.rules[0]");
		assertThat(limit.chargedByOutcome()).isTrue();
		assertThat(limit.reserved()).isTrue();
		assertThat(limit.settleCostHeader()).isEqualTo("X-Bytes-Sent");
		FilterRuleProperties both = rule("/metered/**");
		both.setSettleCostHeader("X-Bytes-Sent");
		both.setChargeOnStatus(List.of(401));
		assertThat(ruleError(both).getName()).isEqualTo("ratelimit.filter.rules[0].settle-cost-header");
		FilterRuleProperties badName = rule("/metered/**");
		badName.setSettleCostHeader("X Bytes");
		assertThat(ruleError(badName).getMessage()).contains("Not an HTTP header name");
	}

	@Test
	void aFailLocalLimitHasItsInstancesShareOfLimitAndCapacityRoundedDown() {
		this.properties.getDefaults().setFailurePolicy(FailurePolicy.FAIL_LOCAL);
		FilterRuleProperties bucket = rule("/api/**");
		bucket.setLimit(10L);
		bucket.setCapacity(20L);
		ConfiguredLimit limit = new LimitResolver(this.properties, 3, this.environment, this.beanFactory).fromRule(bucket,
				"ratelimit.filter.rules[0]");
		assertThat(limit.localShare().definition().limit()).isEqualTo(3);
		assertThat(limit.localShare().definition().capacity()).isEqualTo(6);
		assertThat(limit.request().definition().limit()).as("the shared limit itself").isEqualTo(10);
		assertThat(new LimitResolver(this.properties, null, this.environment, this.beanFactory)
			.fromRule(bucket, "ratelimit.filter.rules[0]")
			.localShare()).as("the in-memory store never fails: no share").isNull();
	}

	@Test
	void aFailLocalShareThatAdmitsNothingIsRejectedNamingTheFailurePolicy() {
		this.properties.getDefaults().setFailurePolicy(FailurePolicy.FAIL_LOCAL);
		FilterRuleProperties rule = rule("/api/**");
		rule.setAlgorithm(Algorithm.FIXED_WINDOW);
		rule.setLimit(10L);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new LimitResolver(this.properties, 20, this.environment, this.beanFactory).fromRule(rule,
					"ratelimit.filter.rules[0]"))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("ratelimit.filter.rules[0].failure-policy"))
			.withMessageContaining("a limit of 10 / 20 = 0");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new LimitResolver(this.properties, 0, this.environment, this.beanFactory))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("ratelimit.fail-local.instances"));
	}

	@Test
	void aPlannedLimitTakesEachPlansShapeAndTheDefaultPlansWhereAPlanDoesNotNameIt() throws Exception {
		this.properties.setPlans(Map.of("free", Map.of("orders", planLimit(10)), "pro", Map.of("orders", planLimit(100)),
				"team", Map.of("other", planLimit(50))));
		this.properties.getPlan().setDefaultPlan("free");

		ConfiguredLimit limit = fromAnnotation("named");

		assertThat(limit.planned()).isTrue();
		assertThat(limit.forPlan("pro").request().definition().limit()).isEqualTo(100);
		assertThat(limit.forPlan("free").request().definition().limit()).isEqualTo(10);
		assertThat(limit.forPlan("team").request().definition().limit()).as("the default plan's shape").isEqualTo(10);
		assertThat(limit.forPlan("team").request().definition().window()).as("the limit's own window").isEqualTo(Duration.ofMinutes(1));
		assertThat(limit.forPlan("pro").plan()).isEqualTo("pro");
	}

	@Test
	void aPlanShapeThatCannotTakeTheLimitsCostIsRejectedNamingThePlanAndTheLimitsSource() {
		this.properties.setPlans(Map.of("free", Map.of("Api.costOfFive", planLimit(3))));
		InvalidConfigurationPropertyValueException error = assertThatExceptionOfType(
				InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> fromAnnotation("costOfFive"))
			.actual();
		assertThat(error.getName()).isEqualTo("ratelimit.plans.free.Api.costOfFive");
		assertThat(error.getMessage()).contains("(the cost and failure policy are those of Api.costOfFive)");
	}

	@Test
	void planSettingsWithoutPlansOrWithAnUnknownDefaultPlanAreRejectedNamingTheProperty() {
		this.properties.getPlan().setExpression("'pro'");
		assertThat(resolverError().getName()).isEqualTo("ratelimit.plan.expression");
		this.properties.setPlans(Map.of("free", Map.of("orders", planLimit(10))));
		this.properties.getPlan().setDefaultPlan("gold");
		InvalidConfigurationPropertyValueException error = resolverError();
		assertThat(error.getName()).isEqualTo("ratelimit.plan.default-plan");
		assertThat(error.getMessage()).contains("use one of free");
		this.properties.getPlan().setDefaultPlan(null);
		this.properties.setPlans(Map.of("free", Map.of("orders", planLimit(0))));
		assertThat(resolverError().getName()).isEqualTo("ratelimit.plans.free.orders.limit");
	}

	@Test
	void invalidDefaultsAreRejectedNamingTheProperty() {
		this.properties.getDefaults().setWindow(Duration.ZERO);
		assertThat(resolverError().getName()).isEqualTo("ratelimit.defaults.window");
		this.properties.getDefaults().setWindow(Duration.ofMinutes(1));
		this.properties.getDefaults().setMaxWait(Duration.ofSeconds(-1));
		assertThat(resolverError().getName()).isEqualTo("ratelimit.defaults.max-wait");
	}

	@Test
	void aConcurrencyLimitTakesOneLeaseForThirtySecondsUnlessItsWindowSaysOtherwise() throws Exception {
		this.properties.getDefaults().setCost(3);
		this.properties.getDefaults().setWindow(Duration.ofSeconds(1));
		ConfiguredLimit annotated = fromAnnotation("exports");
		assertThat(annotated.concurrency()).isTrue();
		assertThat(annotated.request().cost()).as("the default cost is a rate's").isEqualTo(1);
		assertThat(annotated.request().definition().window()).isEqualTo(Duration.ofSeconds(30));
		FilterRuleProperties rule = rule("/exports/**");
		rule.setAlgorithm(Algorithm.CONCURRENCY);
		rule.setLimit(2L);
		assertThat(resolver().fromRule(rule, "ratelimit.filter.rules[0]").request().definition().window())
			.isEqualTo(Duration.ofSeconds(30));
		rule.setWindow(Duration.ofMinutes(5));
		ConfiguredLimit ruled = resolver().fromRule(rule, "ratelimit.filter.rules[0]");
		assertThat(ruled.request().definition().window()).isEqualTo(Duration.ofMinutes(5));
		assertThat(ruled.request().cost()).isEqualTo(1);
	}

	@Test
	void aConcurrencyLimitChargedByOutcomeOrOfAnotherCostIsRejectedNamingItsSource() {
		FilterRuleProperties byStatus = rule("/exports/**");
		byStatus.setAlgorithm(Algorithm.CONCURRENCY);
		byStatus.setChargeOnStatus(List.of(500));
		InvalidConfigurationPropertyValueException statusError = ruleError(byStatus);
		assertThat(statusError.getName()).isEqualTo("ratelimit.filter.rules[0].algorithm");
		assertThat(statusError.getMessage()).contains("concurrency limit '/exports/**'")
			.contains("cannot be charged by outcome");
		FilterRuleProperties costly = rule("/exports/**");
		costly.setAlgorithm(Algorithm.CONCURRENCY);
		costly.setCost(2L);
		InvalidConfigurationPropertyValueException costError = ruleError(costly);
		assertThat(costError.getName()).isEqualTo("ratelimit.filter.rules[0].cost");
		assertThat(costError.getMessage()).contains("must be 1 (a call takes one lease), but was 2");
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("exportsByOutcome"))
			.withMessageContaining("Api.exportsByOutcome")
			.withMessageContaining("cannot be charged by outcome");
	}

	private LimitResolver resolver() {
		return new LimitResolver(this.properties, 1, this.environment, this.beanFactory);
	}

	private InvalidConfigurationPropertyValueException resolverError() {
		return assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class).isThrownBy(this::resolver)
			.actual();
	}

	private InvalidConfigurationPropertyValueException ruleError(FilterRuleProperties rule) {
		return assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> resolver().fromRule(rule, "ratelimit.filter.rules[0]"))
			.actual();
	}

	private InvalidConfigurationPropertyValueException matcherError(FilterRuleProperties... rules) {
		return assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> FilterRuleMatcher.of(List.of(rules), resolver(), new LimitRegistry()))
			.actual();
	}

	private ConfiguredLimit fromAnnotation(String methodName, Class<?>... parameterTypes) throws Exception {
		Method method = Api.class.getDeclaredMethod(methodName, parameterTypes);
		return resolver().fromAnnotation(method.getAnnotation(RateLimited.class), "Api." + methodName,
				"Api." + methodName, KeyVariables.of(method));
	}

	private static FilterRuleProperties rule(String... paths) {
		FilterRuleProperties rule = new FilterRuleProperties();
		rule.setPaths(List.of(paths));
		return rule;
	}

	private static PlanLimitProperties planLimit(long limit) {
		PlanLimitProperties shape = new PlanLimitProperties();
		shape.setLimit(limit);
		return shape;
	}

	@SuppressWarnings("unused")
	static class Api {

		@RateLimited(name = "orders")
		void named() {
		}

		@RateLimited(algorithm = "token-bucket", limit = 10, capacity = 25, window = "${orders.window}",
				maxWait = "500ms")
		void shaped() {
		}

		@RateLimited(algorithm = "token-bucket", limit = 10)
		void bucket() {
		}

		@RateLimited(limit = 5000, period = "week", zone = "${tenant.zone}", firstDayOfWeek = "sunday")
		void weekly() {
		}

		@RateLimited(algorithm = "token-bucket", period = "day")
		void calendarBucket() {
		}

		@RateLimited(key = "#username")
		void byArgument(String username) {
		}

		@RateLimited(key = "#request.remoteAddr")
		void byRequest() {
		}

		@RateLimited(window = "60")
		void windowWithoutUnit() {
		}

		@RateLimited(key = "#usernme")
		void unknownVariable(String username) {
		}

		@RateLimited(key = "@plans.of(#request)")
		void unknownBean() {
		}

		@RateLimited(chargeOnStatus = 600)
		void notAStatus() {
		}

		@RateLimited(algorithm = "leaky-bucket")
		void unknownAlgorithm() {
		}

		@RateLimited(name = "exports", algorithm = "concurrency", limit = 2)
		void exports() {
		}

		@RateLimited(name = "exports", algorithm = "concurrency", limit = 2, chargeOnStatus = 500)
		void exportsByOutcome() {
		}

		@RateLimited(maxWait = "-1s")
		void negativeMaxWait() {
		}

		@RateLimited(algorithm = "fixed-window", limit = 10, cost = 11)
		void costAboveLimit() {
		}

		@RateLimited(algorithm = "fixed-window", limit = 10, cost = 5)
		void costOfFive() {
		}

	}

}
