package dev.ratelimit.spring.enforce;

import java.util.List;

import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.ServerTestSupport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.decisions} per limit and outcome, {@code ratelimit.near.limit} at a ratio of 0.5, the timer of
 * Redis calls and the decisions per script call, after known traffic on the shared test Redis. One test, so that the counts are exactly those of its
 * requests.
 */
@SpringBootTest(classes = { RateLimitTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = { "ratelimit.key-prefix=metrics:", "ratelimit.filter.rules[0].name=dry-run",
		"ratelimit.filter.rules[0].paths=/shadow/only", "ratelimit.filter.rules[0].algorithm=fixed-window",
		"ratelimit.filter.rules[0].limit=2", "ratelimit.filter.rules[0].mode=shadow",
		"ratelimit.filter.rules[1].name=shadowed", "ratelimit.filter.rules[1].paths=/shadow/both",
		"ratelimit.filter.rules[1].algorithm=fixed-window", "ratelimit.filter.rules[1].limit=4",
		"ratelimit.metrics.near-limit-ratio=0.5" })
class MetricsIntegrationTests extends ServerTestSupport {

	/** The limits these tests count on are fixed windows of one minute: a test's requests stay in one. */
	@BeforeEach
	void inOneMinute() throws InterruptedException {
		awaitRoomInTheMinute();
	}

	private static final List<String> OUTCOMES = List.of("allowed", "denied", "shadow-denied", "local-allowed",
			"local-denied", "fail-open", "fail-closed");

	@Autowired
	private MeterRegistry registry;

	@Test
	void everyLimitIsCountedPerOutcomeFromZero() throws Exception {
		// Before any traffic: every limit (rules and annotations) with every outcome, at zero.
		for (String limit : List.of("dry-run", "shadowed", "trial", "plan-reports")) {
			for (String outcome : OUTCOMES) {
				assertThat(count(limit, outcome)).as("%s %s before any request", limit, outcome).isZero();
			}
		}
		assertThat(this.registry.find("ratelimit.decisions").tagKeys("limit", "outcome").counters())
			.allSatisfy((counter) -> assertThat(counter.getId().getTags()).hasSize(2));
		for (String limit : List.of("dry-run", "shadowed", "trial", "plan-reports")) {
			assertThat(nearLimit(limit)).as("%s near the limit before any request", limit).isZero();
		}

		for (int i = 0; i < 3; i++) {
			from("10.8.0.1", "/shadow/only");
		}
		// The enforced 4 admit four requests and deny the fifth; the shadow 2 admits two and denies the other three.
		for (int i = 0; i < 5; i++) {
			from("10.8.0.2", "/shadow/both");
		}

		assertThat(count("dry-run", "allowed")).isEqualTo(2);
		assertThat(count("dry-run", "shadow-denied")).isEqualTo(1);
		assertThat(count("dry-run", "denied")).isZero();
		assertThat(count("shadowed", "allowed")).isEqualTo(4);
		assertThat(count("shadowed", "denied")).isEqualTo(1);
		assertThat(count("trial", "allowed")).isEqualTo(2);
		assertThat(count("trial", "shadow-denied")).isEqualTo(3);
		assertThat(count("plan-reports", "allowed")).isZero();
		// Near the limit at 0.5: an admission that leaves more than half of the budget used. dry-run (2): its 2nd
		// request; shadowed (4): its 3rd and 4th; trial (shadow, 2) beside it: its 2nd (its 3rd and 4th are
		// shadow-denied, and the 5th request was denied by shadowed: nothing admitted)
		assertThat(nearLimit("dry-run")).isEqualTo(1);
		assertThat(nearLimit("shadowed")).isEqualTo(2);
		assertThat(nearLimit("trial")).isEqualTo(1);
		assertThat(nearLimit("plan-reports")).isZero();
		// One script call per request: its limits share one client key.
		assertThat(this.registry.get("ratelimit.redis.calls").tag("outcome", "success").timer().count()).isEqualTo(8);
		assertThat(this.registry.get("ratelimit.redis.failures").counter().count()).isZero();
		// Requests one after the other: each decision alone in its script call.
		DistributionSummary batches = this.registry.get("ratelimit.redis.batch.size").summary();
		assertThat(batches.count()).isEqualTo(8);
		assertThat(batches.totalAmount()).isEqualTo(8);
	}

	private double nearLimit(String limit) {
		Counter counter = this.registry.find("ratelimit.near.limit").tag("limit", limit).counter();
		assertThat(counter).as("ratelimit.near.limit{limit=%s}", limit).isNotNull();
		return counter.count();
	}

	private double count(String limit, String outcome) {
		Counter counter = this.registry.find("ratelimit.decisions").tag("limit", limit).tag("outcome", outcome).counter();
		assertThat(counter).as("ratelimit.decisions{limit=%s,outcome=%s}", limit, outcome).isNotNull();
		return counter.count();
	}

}
