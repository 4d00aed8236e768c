package dev.ratelimit.spring.observation;

import java.util.List;
import java.util.Map;

import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.test.simple.SimpleSpan;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link ObservationContract} on Spring MVC (Tomcat), and calls of {@code @RateLimited} methods outside requests:
 * their decisions, waits, settlements and lease releases go under the caller's observation, found on its thread or,
 * for a {@code Mono}, in the Reactor context it subscribes with; lease renewals are traces of their own.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@Import(MvcObservationIntegrationTests.Jobs.class)
class MvcObservationIntegrationTests extends ObservationContract {

	/** Micrometer's {@code ObservationThreadLocalAccessor.KEY}, as Reactor's Micrometer integration writes it. */
	private static final String OBSERVATION_KEY = "micrometer.observation";

	@Autowired
	private ObservationRegistry registry;

	@Autowired
	private Job job;

	@Test
	void aCallOutsideRequestsGoesUnderItsCallersObservation() {
		Observation caller = Observation.start("nightly.job", this.registry);
		try (Observation.Scope scope = caller.openScope()) {
			this.job.run();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(this.job::run);
		}
		finally {
			caller.stop();
		}
		assertThat(decisionSpans()).hasSize(2).allSatisfy((decision) -> {
			SimpleSpan parent = parentOf(decision);
			assertThat(parent.getName()).isEqualTo("nightly.job");
			assertThat(decision.getTraceId()).isEqualTo(parent.getTraceId());
		});
		assertThat(decisionSpans()).extracting((span) -> span.getTags().get("outcome"))
			.containsExactly("allowed", "denied");
		assertThat(decisionSpans().get(0).getTags()).containsExactlyInAnyOrderEntriesOf(
				Map.of("operation", "decision", "limit", "nightly", "algorithm", "fixed-window", "outcome", "allowed"));
	}

	@Test
	void aMonoOutsideRequestsGoesUnderTheObservationOfItsReactorContext() {
		Observation caller = Observation.start("reactive.job", this.registry);
		try {
			// no scope open on this thread: the observation is only in the subscriber's context
			assertThat(this.job.runReactive().contextWrite((context) -> context.put(OBSERVATION_KEY, caller)).block())
				.isEqualTo("done");
		}
		finally {
			caller.stop();
		}
		SimpleSpan decision = onlyDecisionSpan();
		assertThat(parentOf(decision).getName()).isEqualTo("reactive.job");
		assertThat(decision.getTags()).containsEntry("limit", "reactive-nightly").containsEntry("outcome", "allowed");
	}

	@Test
	void aCallWithoutObservationStartsItsOwnTrace() {
		this.job.alone();
		SimpleSpan decision = onlyDecisionSpan();
		assertThat(decision.getParentId()).isNullOrEmpty();
		assertThat(decision.getTags()).containsEntry("limit", "alone").containsEntry("outcome", "allowed");
	}

	@Test
	void aWaitIsASpanOfItsOwnWithTheDecisionsAfterItsPauseUnderIt() {
		Observation caller = Observation.start("patient.job", this.registry);
		try (Observation.Scope scope = caller.openScope()) {
			this.job.waited();
			// denied (one per 2 s), waits the denial's retry-after, then admitted
			this.job.waited();
		}
		finally {
			caller.stop();
		}
		List<SimpleSpan> decisions = decisionSpans();
		assertThat(decisions).extracting((span) -> span.getTags().get("outcome"))
			.containsExactly("allowed", "denied", "allowed");
		SimpleSpan wait = onlySpan(WAIT_SPAN);
		assertThat(wait.getTags()).containsExactlyInAnyOrderEntriesOf(
				Map.of("operation", "wait", "limit", "waited", "algorithm", "sliding-log", "outcome", "allowed"));
		assertThat(parentOf(wait).getName()).isEqualTo("patient.job");
		assertThat(parentOf(decisions.get(0)).getName()).isEqualTo("patient.job");
		assertThat(parentOf(decisions.get(1)).getName()).isEqualTo("patient.job");
		assertThat(parentOf(decisions.get(2)).getSpanId()).as("the decision after the pause").isEqualTo(wait.getSpanId());
	}

	@Test
	void aMonosWaitGoesUnderTheObservationOfItsReactorContext() {
		Observation caller = Observation.start("reactive.patient.job", this.registry);
		try {
			for (int i = 0; i < 2; i++) {
				assertThat(this.job.waitedReactive().contextWrite((context) -> context.put(OBSERVATION_KEY, caller)).block())
					.isEqualTo("done");
			}
		}
		finally {
			caller.stop();
		}
		List<SimpleSpan> decisions = decisionSpans();
		assertThat(decisions).extracting((span) -> span.getTags().get("outcome"))
			.containsExactly("allowed", "denied", "allowed");
		SimpleSpan wait = onlySpan(WAIT_SPAN);
		assertThat(wait.getTags()).containsEntry("limit", "reactive-waited").containsEntry("outcome", "allowed");
		assertThat(parentOf(wait).getName()).isEqualTo("reactive.patient.job");
		assertThat(parentOf(decisions.get(2)).getSpanId()).isEqualTo(wait.getSpanId());
	}

	@Test
	void aChargeAfterTheCallAndASettlementAreSpansOfTheirOwn() {
		Observation caller = Observation.start("billing.job", this.registry);
		try (Observation.Scope scope = caller.openScope()) {
			// admitted on a read (a decision), charged after it failed (a settlement)
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.job.charged(true));
			// reserved 10 on arrival (a decision), settled at its real cost of 3 (a settlement)
			assertThat(this.job.settled()).isEqualTo(3);
		}
		finally {
			caller.stop();
		}
		assertThat(decisionSpans()).extracting((span) -> span.getTags().get("limit")).containsExactly("charged", "settled");
		List<SimpleSpan> settlements = this.tracer.getSpans()
			.stream()
			.filter((span) -> SETTLEMENT_SPAN.equals(span.getName()))
			.toList();
		assertThat(settlements).extracting((span) -> span.getTags().get("limit") + " " + span.getTags().get("outcome"))
			.containsExactly("charged allowed", "settled settled");
		assertThat(settlements).allSatisfy((span) -> {
			assertThat(span.getTags()).containsEntry("operation", "settlement").containsEntry("algorithm", "token-bucket");
			assertThat(parentOf(span).getName()).isEqualTo("billing.job");
		});
	}

	@Test
	void aLeaseIsRenewedInATraceOfItsOwnAndReleasedUnderTheCaller() throws Exception {
		Observation caller = Observation.start("slot.job", this.registry);
		try (Observation.Scope scope = caller.openScope()) {
			// a lease of 600 ms is renewed every 200 ms: a call of 1 s is renewed at least twice
			this.job.slot(1000);
		}
		finally {
			caller.stop();
		}
		// the release is sent as the call ends, without waiting for Redis' answer: its span ends when Redis answers.
		// A renewal on its way as the call ends (renewals are looked for every 250 ms, the call lasts 1 s) is followed
		// by a second release once it is answered (LeaseRenewals), from the renewal's thread: a trace of its own.
		awaitEnded((span) -> "ratelimit lease-release".equals(span.getName()) && hasParent(span));
		List<SimpleSpan> releases = this.tracer.getSpans()
			.stream()
			.filter((span) -> "ratelimit lease-release".equals(span.getName()))
			.toList();
		assertThat(releases).hasSizeBetween(1, 2);
		List<SimpleSpan> underACaller = releases.stream()
			.filter(MvcObservationIntegrationTests::hasParent)
			.toList();
		assertThat(underACaller).as("the release as the call ended").hasSize(1);
		SimpleSpan release = underACaller.get(0);
		assertThat(release.getTags()).containsExactlyInAnyOrderEntriesOf(
				Map.of("operation", "lease-release", "limit", "slots", "algorithm", "concurrency", "outcome", "released"));
		assertThat(parentOf(release).getName()).isEqualTo("slot.job");
		List<SimpleSpan> renewals = this.tracer.getSpans()
			.stream()
			.filter((span) -> "ratelimit lease-renewal".equals(span.getName()))
			.toList();
		assertThat(renewals).isNotEmpty().allSatisfy((renewal) -> {
			assertThat(renewal.getTags()).containsEntry("limit", "slots").containsEntry("outcome", "renewed");
			assertThat(renewal.getParentId()).as("a trace of its own").isNullOrEmpty();
		});
	}

	private static boolean hasParent(SimpleSpan span) {
		return span.getParentId() != null && !span.getParentId().isEmpty();
	}

	/** Limited methods called outside requests. */
	public static class Job {

		@RateLimited(name = "nightly", algorithm = "fixed-window", limit = 1, window = "1h")
		public void run() {
		}

		@RateLimited(name = "reactive-nightly", limit = 1, window = "1h")
		public Mono<String> runReactive() {
			return Mono.just("done");
		}

		@RateLimited(name = "alone", limit = 1, window = "1h")
		public void alone() {
		}

		// 2 s: a second call made at once is denied, even on a busy machine, and waits at most that
		@RateLimited(name = "waited", algorithm = "sliding-log", limit = 1, window = "2s", maxWait = "30s")
		public void waited() {
		}

		@RateLimited(name = "charged", algorithm = "token-bucket", limit = 5, window = "1h",
				chargeOn = IllegalStateException.class)
		public void charged(boolean fail) {
			if (fail) {
				throw new IllegalStateException("failed");
			}
		}

		@RateLimited(name = "settled", algorithm = "token-bucket", limit = 100, window = "1h", cost = 10,
				settleCost = "#result")
		public long settled() {
			return 3;
		}

		@RateLimited(name = "slots", algorithm = "concurrency", limit = 2, window = "600ms")
		public void slot(long millis) throws InterruptedException {
			Thread.sleep(millis);
		}

		@RateLimited(name = "reactive-waited", algorithm = "sliding-log", limit = 1, window = "2s", maxWait = "30s")
		public Mono<String> waitedReactive() {
			return Mono.just("done");
		}

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Jobs {

		@Bean
		Job job() {
			return new Job();
		}

	}

}
