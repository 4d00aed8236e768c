package dev.ratelimit.spring.openapi;

import java.util.List;

import dev.ratelimit.spring.autoconfigure.FilterRuleProperties;
import dev.ratelimit.spring.autoconfigure.RateLimitProperties;
import dev.ratelimit.spring.limits.FilterRuleMatcher;
import dev.ratelimit.spring.limits.LimitRegistry;
import dev.ratelimit.spring.limits.LimitResolver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which operations a filter rule surely covers: every request of the operation (its path template, with any value
 * of its variables, and its method) matches the rule, as the filter matches it. A rule that matches only some of them
 * covers nothing.
 */
class OperationPathsTests {

	@ParameterizedTest(name = "{0} {1} covers {2} {3}: {4}")
	@CsvSource(delimiter = '|', textBlock = """
			/api/**               |      | GET    | /api/items/{id}        | true
			/api/items/*          |      | GET    | /api/items/{id}        | true
			/api/items/{item}     |      | GET    | /api/items/{id}        | true
			/api/items/{*rest}    |      | GET    | /api/items/{id}        | true
			/api/items/{id:.+}    |      | GET    | /api/items/{id}        | true
			/api/items/?*         |      | GET    | /api/items/{id}        | true
			/api/items/special    |      | GET    | /api/items/special     | true
			/api/items/special    |      | GET    | /api/items/{id}        | false
			/api/items/*.json     |      | GET    | /api/items/{id}        | false
			/api/items/??         |      | GET    | /api/items/{id}        | false
			/api/items/{id:\\d+}  |      | GET    | /api/items/{id}        | false
			/api/items/{id:[a-z]+}|      | GET    | /api/items/{id}        | false
			/api/items/{id:\\w+}  |      | GET    | /api/items/{id}        | false
			/api/items/*          |      | GET    | /api/items/{id}/parts  | false
			/api/items/{id}       |      | GET    | /api/items/{id}.json   | true
			/api/items/*.json     |      | GET    | /api/items/{id}.json   | false
			/api/**               |      | GET    | /api/files/**          | true
			/api/files/*          |      | GET    | /api/files/**          | false
			/API/**               |      | GET    | /api/items             | false
			/api/**               | GET  | HEAD   | /api/items             | true
			/api/**               | GET  | POST   | /api/items             | false
			/api/**               | POST | POST   | /api/items/{id}        | true
			""")
	void aRuleCoversAnOperationWhenItMatchesEveryRequestOfIt(String path, String methods, String method,
			String template, boolean covers) {
		FilterRuleProperties rule = new FilterRuleProperties();
		rule.setName("rule");
		rule.setPaths(List.of(path));
		rule.setMethods((methods != null) ? List.of(methods) : List.of());
		FilterRuleMatcher rules = FilterRuleMatcher.of(List.of(rule), new LimitResolver(new RateLimitProperties(), 1,
				new MockEnvironment(), new DefaultListableBeanFactory()), new LimitRegistry());

		assertThat(rules.matchingAll(method, OperationPaths.samples(template))).hasSize(covers ? 1 : 0);
	}

}
