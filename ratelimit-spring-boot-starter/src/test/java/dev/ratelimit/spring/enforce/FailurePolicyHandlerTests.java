package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.HeaderStyle;
import dev.ratelimit.spring.RateLimitUnavailableException;
import dev.ratelimit.spring.enforce.FailurePolicyHandler.Moment;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the failure policies make of limits that Redis did not decide, at each moment: in memory, without Redis or a
 * Spring context.
 */
class FailurePolicyHandlerTests {

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final FailurePolicyHandler policies = new FailurePolicyHandler(new LocalFallback(Duration.ofSeconds(1)),
			new MeteredEventRecorder(Duration.ofSeconds(10), this.meters, true, new NearLimit(0.8)),
			new RateLimitResponder(new RateLimitHeaderWriter(HeaderStyle.IETF), Duration.ofSeconds(1)));

	private final LimitedRequest request = new BackgroundCall();

	@Test
	void aFailClosedLimitRefusesTheDecisionAndTheAdmissionWith503() {
		List<ConfiguredLimit> limits = List.of(limit("closed", FailurePolicy.FAIL_CLOSED, false),
				limit("local", FailurePolicy.FAIL_LOCAL, false));
		for (Moment moment : List.of(Moment.DECISION, Moment.ADMISSION)) {
			assertThatExceptionOfType(RateLimitUnavailableException.class)
				.isThrownBy(() -> this.policies.apply(this.request, "client", limits, moment, null));
		}
		assertThat(count("closed", "fail-closed")).isEqualTo(2);
		assertThat(count("local", "local-allowed")).isZero();
	}

	@Test
	void aShadowLimitNeverRefusesNotEvenFailClosed() {
		assertThat(this.policies.apply(this.request, "client", List.of(limit("dry-run", FailurePolicy.FAIL_CLOSED, true)),
				Moment.DECISION, null))
			.isNull();
		assertThat(count("dry-run", "fail-open")).isEqualTo(1);
		assertThat(count("dry-run", "fail-closed")).isZero();
	}

	@Test
	void failLocalLimitsAreDecidedOnThisInstanceAndFailOpenOnesSkipped() {
		List<ConfiguredLimit> limits = List.of(limit("local", FailurePolicy.FAIL_LOCAL, false),
				limit("open", FailurePolicy.FAIL_OPEN, false));
		RateLimitDecision first = this.policies.apply(this.request, "client", limits, Moment.DECISION, null);
		RateLimitDecision second = this.policies.apply(this.request, "client", limits, Moment.DECISION, null);
		RateLimitDecision third = this.policies.apply(this.request, "client", limits, Moment.DECISION, null);
		assertThat(first.decisions()).extracting((decision) -> decision.request().name()).containsExactly("local");
		assertThat(List.of(first.allowed(), second.allowed(), third.allowed())).containsExactly(true, true, false);
		assertThat(count("local", "local-allowed")).isEqualTo(2);
		assertThat(count("local", "local-denied")).isEqualTo(1);
		assertThat(count("open", "fail-open")).isEqualTo(3);
	}

	@Test
	void theAdmissionReadsTheLocalStateWithoutConsumingIt() {
		List<ConfiguredLimit> limits = List.of(limit("local", FailurePolicy.FAIL_LOCAL, false));
		for (int i = 0; i < 3; i++) {
			RateLimitDecision read = this.policies.apply(this.request, "client", limits, Moment.ADMISSION, null);
			assertThat(read.allowed()).isTrue();
			assertThat(read.decisions().get(0).remaining()).isEqualTo(2);
		}
		assertThat(count("local", "local-allowed")).isZero();
	}

	@Test
	void theChargeAfterTheCallNeverRefusesAndCountsNothingAsOpen() {
		List<ConfiguredLimit> limits = List.of(limit("closed", FailurePolicy.FAIL_CLOSED, false),
				limit("open", FailurePolicy.FAIL_OPEN, false), limit("local", FailurePolicy.FAIL_LOCAL, false));
		RateLimitDecision charged = this.policies.apply(this.request, "client", limits, Moment.CHARGE, null);
		assertThat(charged.decisions()).extracting((decision) -> decision.request().name()).containsExactly("local");
		assertThat(count("closed", "fail-closed")).isZero();
		assertThat(count("open", "fail-open")).isZero();
		assertThat(count("local", "local-allowed")).isEqualTo(1);
	}

	@Test
	void limitsWithoutAFailLocalOneLeaveNoLocalDecision() {
		assertThat(this.policies.apply(this.request, "client", List.of(limit("open", FailurePolicy.FAIL_OPEN, false)),
				Moment.DECISION, null))
			.isNull();
	}

	/** 2 per hour, of which a fail-local limit keeps the whole share (one instance). */
	private static ConfiguredLimit limit(String name, FailurePolicy policy, boolean shadow) {
		LimitRequest definition = LimitDefinition.of(name, Algorithm.FIXED_WINDOW, 2, Duration.ofHours(1))
			.request()
			.withShadow(shadow);
		return new ConfiguredLimit(
				new ConfiguredLimit.Budget(definition, (policy == FailurePolicy.FAIL_LOCAL) ? definition : null, null),
				new ConfiguredLimit.ClientKey(null, false), new ConfiguredLimit.Origin(name, true),
				new ConfiguredLimit.Handling(policy, null, null), ConfiguredLimit.Planning.NONE);
	}

	private double count(String limit, String outcome) {
		var counter = this.meters.find("ratelimit.decisions").tags("limit", limit, "outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

}
