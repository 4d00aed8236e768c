package dev.ratelimit.spring.limits;

import java.lang.reflect.Method;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.core.UsageRecording;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.autoconfigure.FilterRuleProperties;
import dev.ratelimit.spring.autoconfigure.PlanLimitProperties;
import dev.ratelimit.spring.autoconfigure.RateLimitProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A limit's {@code usage} as {@link LimitResolver} reads it from annotations, rules and {@code ratelimit.usage}: the
 * period, the cap, every plan's shape recording as the limit does, and invalid values named.
 */
class LimitUsageTests {

	private final RateLimitProperties properties = new RateLimitProperties();

	private final MockEnvironment environment = new MockEnvironment();

	@Test
	void trueRecordsPerTheLimitsCalendarPeriodElsePerMonthInUtc() throws Exception {
		assertThat(usage(fromAnnotation("monthly"))).isEqualTo(
				new UsageRecording(CalendarPeriod.of(CalendarPeriod.Unit.MONTH), UsageRecording.DEFAULT_MAX_CLIENTS));
		assertThat(usage(fromAnnotation("dailyQuota")).period())
			.isEqualTo(CalendarPeriod.of(CalendarPeriod.Unit.DAY, ZoneId.of("Europe/Berlin")));
		assertThat(usage(fromAnnotation("unset"))).isNull();
		assertThat(usage(fromAnnotation("off"))).isNull();
	}

	@Test
	void aPeriodOfItsOwnIsWrittenAsCalendarPeriodsAreAndTheCapIsTheProperty() throws Exception {
		this.environment.setProperty("billing.period", "Day in Europe/Berlin");
		this.properties.getUsage().setMaxClients(500);
		assertThat(usage(fromAnnotation("placeholder")))
			.isEqualTo(new UsageRecording(CalendarPeriod.of(CalendarPeriod.Unit.DAY, ZoneId.of("Europe/Berlin")), 500));
		FilterRuleProperties rule = rule("week in UTC from sunday");
		assertThat(usage(resolver().fromRule(rule, "ratelimit.filter.rules[0]")).period())
			.isEqualTo(new CalendarPeriod(CalendarPeriod.Unit.WEEK, ZoneId.of("UTC"), DayOfWeek.SUNDAY));
	}

	@Test
	void everyPlansShapeRecordsWhatTheLimitRecords() throws Exception {
		PlanLimitProperties free = new PlanLimitProperties();
		free.setLimit(10L);
		PlanLimitProperties pro = new PlanLimitProperties();
		pro.setAlgorithm(Algorithm.SLIDING_WINDOW_COUNTER);
		pro.setLimit(100L);
		this.properties.setPlans(Map.of("free", Map.of("Api.monthly", free), "pro", Map.of("Api.monthly", pro)));
		this.properties.getPlan().setDefaultPlan("free");
		ConfiguredLimit limit = fromAnnotation("monthly");
		assertThat(limit.planned()).isTrue();
		for (String plan : List.of("free", "pro")) {
			assertThat(usage(limit.forPlan(plan))).as(plan).isEqualTo(usage(limit));
		}
		assertThat(limit.forPlan("pro").request().definition().algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_COUNTER);

		PlanLimitProperties concurrency = new PlanLimitProperties();
		concurrency.setAlgorithm(Algorithm.CONCURRENCY);
		this.properties.setPlans(Map.of("free", Map.of("Api.monthly", concurrency)));
		this.properties.getPlan().setDefaultPlan(null);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> fromAnnotation("monthly"))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("ratelimit.plans.free.Api.monthly"))
			.withMessageContaining("records no usage");
	}

	@Test
	void invalidUsageIsRejectedNamingThePropertyOrTheMethod() {
		for (String value : List.of("fortnight", "month in Mars/Olympus", "month from sunday", "yes")) {
			assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class).as(value)
				.isThrownBy(() -> resolver().fromRule(rule(value), "ratelimit.filter.rules[0]"))
				.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("ratelimit.filter.rules[0].usage"))
				.withMessageContaining("usage of rate limit '/api/**' must be true, false or a calendar period");
		}
		FilterRuleProperties concurrency = rule("true");
		concurrency.setAlgorithm(Algorithm.CONCURRENCY);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> resolver().fromRule(concurrency, "ratelimit.filter.rules[0]"))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("ratelimit.filter.rules[0].usage"));
		assertThatIllegalStateException().isThrownBy(() -> fromAnnotation("fortnightly"))
			.withMessageStartingWith("Invalid Api.fortnightly: usage of rate limit 'Api.fortnightly'");
		this.properties.getUsage().setMaxClients(0);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class).isThrownBy(this::resolver)
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("ratelimit.usage.max-clients"));
	}

	@Test
	void limitsOfOneNameMustAgreeOnTheirUsage() throws Exception {
		LimitRegistry registry = new LimitRegistry();
		FilterRuleProperties recording = rule("true");
		recording.setName("shared");
		FilterRuleProperties silent = rule(null);
		silent.setName("shared");
		registry.register(resolver().fromRule(recording, "ratelimit.filter.rules[0]"));
		assertThatIllegalStateException()
			.isThrownBy(() -> registry.register(resolver().fromRule(silent, "ratelimit.filter.rules[1]")))
			.withMessageContaining("share a budget but differ")
			.withMessageContaining("usage per month");
	}

	private static UsageRecording usage(ConfiguredLimit limit) {
		return limit.request().definition().usage();
	}

	private LimitResolver resolver() {
		return new LimitResolver(this.properties, 1, this.environment, new DefaultListableBeanFactory());
	}

	private ConfiguredLimit fromAnnotation(String methodName) throws Exception {
		Method method = Api.class.getDeclaredMethod(methodName);
		return resolver().fromAnnotation(method.getAnnotation(RateLimited.class), "Api." + methodName,
				"Api." + methodName, KeyVariables.of(method));
	}

	private static FilterRuleProperties rule(String usage) {
		FilterRuleProperties rule = new FilterRuleProperties();
		rule.setPaths(List.of("/api/**"));
		rule.setUsage(usage);
		return rule;
	}

	@SuppressWarnings("unused")
	static class Api {

		@RateLimited(limit = 100, window = "1m", usage = "true")
		void monthly() {
		}

		@RateLimited(limit = 10_000, period = "day", zone = "Europe/Berlin", usage = "true")
		void dailyQuota() {
		}

		@RateLimited(limit = 100)
		void unset() {
		}

		@RateLimited(limit = 100, usage = "false")
		void off() {
		}

		@RateLimited(limit = 100, usage = "${billing.period}")
		void placeholder() {
		}

		@RateLimited(limit = 100, usage = "fortnight")
		void fortnightly() {
		}

	}

}
