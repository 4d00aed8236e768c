package dev.ratelimit.spring.openapi;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.spring.autoconfigure.FilterRuleProperties;
import dev.ratelimit.spring.autoconfigure.RateLimitProperties;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.LimitResolver;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A limit as the document describes it: name, limit, window in configuration's units, algorithm, and what differs
 * from the plain case (a bucket's capacity, a request's cost).
 */
class LimitTextTests {

	@Test
	void aWindowIsWrittenInTheLargestUnitThatDividesIt() {
		assertThat(text(Algorithm.FIXED_WINDOW, 10, Duration.ofDays(1))).isEqualTo("api: 10 per 1d (fixed window)");
		assertThat(text(Algorithm.SLIDING_LOG, 10, Duration.ofHours(2))).isEqualTo("api: 10 per 2h (sliding log)");
		assertThat(text(Algorithm.SLIDING_WINDOW_COUNTER, 10, Duration.ofSeconds(90)))
			.isEqualTo("api: 10 per 90s (sliding window counter)");
		assertThat(text(Algorithm.TOKEN_BUCKET, 10, Duration.ofMillis(1500)))
			.isEqualTo("api: 10 per 1500ms (token bucket)");
	}

	@Test
	void aBucketsCapacityAndARequestsCostAreSaid() {
		FilterRuleProperties rule = rule(Algorithm.TOKEN_BUCKET, 100, Duration.ofMinutes(1));
		rule.setCapacity(200L);
		rule.setCost(5L);
		assertThat(LimitText.of(limit(rule))).isEqualTo("api: 100 per 1m (token bucket, capacity 200), 5 per request");
	}

	private static String text(Algorithm algorithm, long limit, Duration window) {
		return LimitText.of(limit(rule(algorithm, limit, window)));
	}

	private static FilterRuleProperties rule(Algorithm algorithm, long limit, Duration window) {
		FilterRuleProperties rule = new FilterRuleProperties();
		rule.setName("api");
		rule.setPaths(List.of("/api/**"));
		rule.setAlgorithm(algorithm);
		rule.setLimit(limit);
		rule.setWindow(window);
		return rule;
	}

	private static ConfiguredLimit limit(FilterRuleProperties rule) {
		return new LimitResolver(new RateLimitProperties(), 1, new MockEnvironment(), new DefaultListableBeanFactory())
			.fromRule(rule, "ratelimit.filter.rules[0]");
	}

}
