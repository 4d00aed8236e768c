package dev.ratelimit.spring.observation;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.spring.web.ServerTestSupport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every decision of a request is one span under the request's span (same trace, the server span its parent), with
 * the documented key values and never a client key, and a rule charged on status is a decision then a settlement;
 * Boot's meter handler makes a {@code ratelimit.operations} timer of them beside the {@code ratelimit.decisions}
 * counter. Micrometer Tracing's test tracer, no exporter; one server per
 * stack, a real Redis.
 */
@TestPropertySource(properties = { "ratelimit.key-prefix=observed:", "ratelimit.filter.rules[0].name=observed",
		"ratelimit.filter.rules[0].paths=/plain", "ratelimit.filter.rules[0].algorithm=sliding-log",
		"ratelimit.filter.rules[0].limit=2", "ratelimit.filter.rules[0].key=#header('X-Api-Key')",
		"ratelimit.filter.rules[1].name=observed-shadow", "ratelimit.filter.rules[1].paths=/plain",
		"ratelimit.filter.rules[1].algorithm=token-bucket", "ratelimit.filter.rules[1].limit=1",
		"ratelimit.filter.rules[1].window=1h",
		"ratelimit.filter.rules[1].mode=shadow", "ratelimit.filter.rules[1].key=#header('X-Api-Key')",
		"ratelimit.filter.rules[2].name=by-address", "ratelimit.filter.rules[2].paths=/plain-get",
		"ratelimit.filter.rules[2].algorithm=token-bucket", "ratelimit.filter.rules[2].limit=5",
		"ratelimit.filter.rules[3].name=by-key", "ratelimit.filter.rules[3].paths=/plain-get",
		"ratelimit.filter.rules[3].algorithm=fixed-window", "ratelimit.filter.rules[3].limit=5",
		"ratelimit.filter.rules[3].key=#header('X-Api-Key')", "ratelimit.filter.rules[4].name=charged-ok",
		"ratelimit.filter.rules[4].paths=/plain-cors", "ratelimit.filter.rules[4].algorithm=fixed-window",
		"ratelimit.filter.rules[4].limit=5", "ratelimit.filter.rules[4].charge-on-status=200",
		// a denial stands for the rest of the minute: remembered until then, however slowly the test's requests
		// follow each other on a loaded machine (the default 1 s was passed there once)
		"ratelimit.denials.max-age=1m" })
@Import(ObservationContract.Tracing.class)
abstract class ObservationContract extends ServerTestSupport {

	static final String DECISION_SPAN = "ratelimit decision";

	static final String WAIT_SPAN = "ratelimit wait";

	static final String SETTLEMENT_SPAN = "ratelimit settlement";

	@Autowired
	SimpleTracer tracer;

	@Autowired
	MeterRegistry meters;

	@BeforeEach
	void noSpansYet() {
		this.tracer.getSpans().clear();
	}

	@Test
	void eachDecisionIsOneSpanUnderTheRequestsSpan() throws Exception {
		String apiKey = "secret-" + UUID.randomUUID();
		// observed (2 per minute) and its shadow (1 per hour, a token bucket: no window edge between the requests, where
		// a fixed window's count would start again) share the client key: one script call decides both
		List<String> outcomes = List.of("allowed", "shadow-denied", "denied", "remembered-denied");
		List<Integer> statuses = List.of(200, 200, 429, 429);
		for (int i = 0; i < outcomes.size(); i++) {
			this.tracer.getSpans().clear();
			HttpResponse<String> response = from("10.77.0.1", "/plain", "X-Api-Key", apiKey);
			assertThat(response.statusCode()).as("request %d", i + 1).isEqualTo(statuses.get(i));

			SimpleSpan decision = onlyDecisionSpan();
			SimpleSpan server = parentOf(decision);
			assertThat(nameWhenEnded(server)).as("the parent of request %d's decision", i + 1).startsWith("http get");
			assertThat(decision.getTraceId()).isEqualTo(server.getTraceId());
			assertThat(decision.getTags()).as("request %d", i + 1)
				.containsExactlyInAnyOrderEntriesOf(Map.of("operation", "decision", "limit", "observed,observed-shadow",
						"algorithm", "sliding-log,token-bucket", "outcome", outcomes.get(i)));
			assertThat(decision.getEndTimestamp()).as("ended").isAfterOrEqualTo(decision.getStartTimestamp());
			assertNoClientIn(decision, apiKey, "10.77.0.1");
		}
		// Boot's meter handler: a timer of its own name, the counter unchanged beside it
		assertThat(this.meters.get("ratelimit.operations")
			.tags("operation", "decision", "limit", "observed,observed-shadow", "outcome", "denied")
			.timer()
			.count()).isOne();
		// the counter counts the remembered denial as denied too (and in ratelimit.denials.remembered)
		assertThat(this.meters.get("ratelimit.decisions").tags("limit", "observed", "outcome", "denied").counter().count())
			.isEqualTo(2);
	}

	@Test
	void aRequestWithTwoClientKeysHasOneSpanPerKey() throws Exception {
		// by-address and by-key apply to the same path with different client keys: two script calls, one after the
		// other, the second started where Redis answered the first
		String apiKey = "two-" + UUID.randomUUID();
		HttpResponse<String> response = from("10.77.0.2", "/plain-get", "X-Api-Key", apiKey);
		assertThat(response.statusCode()).isEqualTo(200);
		List<SimpleSpan> decisions = decisionSpans();
		assertThat(decisions).extracting((span) -> span.getTags().get("limit"))
			.containsExactlyInAnyOrder("by-address", "by-key");
		for (SimpleSpan decision : decisions) {
			SimpleSpan server = parentOf(decision);
			assertThat(nameWhenEnded(server)).startsWith("http get");
			assertThat(decision.getTraceId()).isEqualTo(server.getTraceId());
			assertThat(decision.getTags()).containsEntry("outcome", "allowed");
			assertNoClientIn(decision, apiKey, "10.77.0.2");
		}
		assertThat(parentOf(decisions.get(0)).getSpanId()).isEqualTo(parentOf(decisions.get(1)).getSpanId());
	}

	@Test
	void aRuleChargedOnStatusIsADecisionThenASettlementUnderTheRequestsSpan() throws Exception {
		HttpResponse<String> response = from("10.77.0.3", "/plain-cors");
		assertThat(response.statusCode()).isEqualTo(200);
		// admitted on a read, charged once the status (200) is known
		SimpleSpan admission = onlyDecisionSpan();
		SimpleSpan settlement = ended(SETTLEMENT_SPAN);
		assertThat(admission.getTags()).containsEntry("limit", "charged-ok").containsEntry("outcome", "allowed");
		assertThat(settlement.getTags()).containsExactlyInAnyOrderEntriesOf(Map.of("operation", "settlement", "limit",
				"charged-ok", "algorithm", "fixed-window", "outcome", "allowed"));
		for (SimpleSpan span : List.of(admission, settlement)) {
			assertThat(nameWhenEnded(parentOf(span))).startsWith("http get");
			assertNoClientIn(span, "10.77.0.3");
		}
	}

	/** The only span of {@code name}, once it has ended (a charge may end after the client has its answer). */
	SimpleSpan ended(String name) throws InterruptedException {
		awaitEnded(name);
		return onlySpan(name);
	}

	/** Waits (at most 30 s) until a span of {@code name} has ended. */
	void awaitEnded(String name) throws InterruptedException {
		awaitEnded((span) -> name.equals(span.getName()));
	}

	/** Waits (at most 30 s) until a span that {@code matches} has ended. */
	void awaitEnded(java.util.function.Predicate<SimpleSpan> matches) throws InterruptedException {
		long giveUp = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
		while (this.tracer.getSpans()
			.stream()
			.noneMatch((span) -> matches.test(span) && span.getEndTimestamp().toEpochMilli() != 0)
				&& System.nanoTime() < giveUp) {
			Thread.sleep(5);
		}
	}

	SimpleSpan onlySpan(String name) {
		List<SimpleSpan> spans = this.tracer.getSpans().stream().filter((span) -> name.equals(span.getName())).toList();
		assertThat(spans).as("spans named %s", name).hasSize(1);
		return spans.get(0);
	}

	SimpleSpan onlyDecisionSpan() {
		List<SimpleSpan> decisions = decisionSpans();
		assertThat(decisions).as("decision spans").hasSize(1);
		return decisions.get(0);
	}

	List<SimpleSpan> decisionSpans() {
		return this.tracer.getSpans().stream().filter((span) -> DECISION_SPAN.equals(span.getName())).toList();
	}

	SimpleSpan parentOf(SimpleSpan span) {
		assertThat(span.getParentId()).as("the parent of %s", span.getName()).isNotEmpty();
		return this.tracer.getSpans()
			.stream()
			.filter((candidate) -> candidate.getSpanId().equals(span.getParentId()))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no span " + span.getParentId() + " among " + this.tracer.getSpans()));
	}

	/**
	 * The span's name once it has ended: a server span is named when its observation stops, which may come after the
	 * client has read the response.
	 */
	static String nameWhenEnded(SimpleSpan span) throws InterruptedException {
		long giveUp = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
		while (span.getEndTimestamp().toEpochMilli() == 0 && System.nanoTime() < giveUp) {
			Thread.sleep(5);
		}
		assertThat(span.getEndTimestamp().toEpochMilli()).as("%s ended", span).isPositive();
		return span.getName();
	}

	static void assertNoClientIn(SimpleSpan span, String... clientValues) {
		for (String value : span.getTags().values()) {
			for (String client : clientValues) {
				assertThat(value).doesNotContain(client);
			}
			assertThat(value).doesNotStartWith("key:").doesNotStartWith("ip:");
		}
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Tracing {

		@Bean
		SimpleTracer simpleTracer() {
			return new SimpleTracer();
		}

		@Bean
		ObservationHandler<Observation.Context> tracingHandler(SimpleTracer tracer) {
			return new DefaultTracingObservationHandler(tracer);
		}

	}

}
