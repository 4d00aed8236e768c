package dev.ratelimit.spring.observation;

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
 * their decisions go under the caller's observation, found on its thread or, for a {@code Mono}, in the Reactor
 * context it subscribes with.
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

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Jobs {

		@Bean
		Job job() {
			return new Job();
		}

	}

}
