package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.HeaderStyle;
import dev.ratelimit.spring.MissingKeyPolicy;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimitUnavailableException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.PlanSelector;
import dev.ratelimit.spring.observation.DefaultRateLimitObservationConvention;
import dev.ratelimit.spring.observation.RateLimitObservationContext;
import dev.ratelimit.spring.observation.RateLimitObservationConvention;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RateLimitEnforcer} on its own, without a Spring context: decisions of the in-memory limiter turned into
 * admissions, 429s and header fields; remembered denials answered without the store; limits of several client keys
 * decided in sequence; and a store that cannot be reached (a Redis client pointed at a closed port) handled by the
 * failure policies. Windows of an hour with token buckets, so no decision depends on when the test runs.
 */
class RateLimitEnforcerTests {

	private final CountingLimiter limiter = new CountingLimiter(new InMemoryRateLimiter());

	private final StandardEvaluationContext context = new StandardEvaluationContext();

	@Test
	void admitsWhileTheLimitHasRoomWithItsFieldsThenAnswers429() {
		RateLimitEnforcer enforcer = enforcer(this.limiter);
		List<ConfiguredLimit> limits = List.of(limit("api", 2, null, FailurePolicy.FAIL_OPEN));

		TestRequest first = new TestRequest();
		enforcer.enforceAndWait(first, limits, this.context, new Reservation());
		TestRequest second = new TestRequest();
		enforcer.enforceAndWait(second, limits, this.context, new Reservation());

		assertThat(first.headers.get("RateLimit")).containsExactly("\"api\";r=1;t=1800");
		assertThat(second.headers.get("RateLimit")).containsExactly("\"api\";r=0;t=1800");
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> enforcer.enforceAndWait(new TestRequest(), limits, this.context, new Reservation()))
			.satisfies((denied) -> assertThat(denied.getStatusCode().value()).isEqualTo(429));
	}

	@Test
	void aDenialIsRememberedAndAnsweredWithoutAskingTheStore() {
		RateLimitEnforcer enforcer = enforcer(this.limiter);
		List<ConfiguredLimit> limits = List.of(limit("api", 1, null, FailurePolicy.FAIL_OPEN));
		enforcer.enforceAndWait(new TestRequest(), limits, this.context, new Reservation());
		for (int i = 0; i < 3; i++) {
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> enforcer.enforceAndWait(new TestRequest(), limits, this.context, new Reservation()));
		}
		assertThat(this.limiter.decisions).as("one admission, one denial; the other denials from memory").hasValue(2);
	}

	@Test
	void limitsOfSeveralKeysAreDecidedInSequenceAndADenialStopsIt() {
		RateLimitEnforcer enforcer = enforcer(this.limiter);
		ConfiguredLimit byIp = limit("by-ip", 10, null, FailurePolicy.FAIL_OPEN);
		ConfiguredLimit byUser = limit("by-user", 1, "'alice'", FailurePolicy.FAIL_OPEN);
		ConfiguredLimit later = limit("later", 10, "'third'", FailurePolicy.FAIL_OPEN);
		List<ConfiguredLimit> limits = List.of(byIp, byUser, later);

		enforcer.enforceAndWait(new TestRequest(), limits, this.context, new Reservation());
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> enforcer.enforceAndWait(new TestRequest(), limits, this.context, new Reservation()));

		assertThat(this.limiter.peek("ip:192.0.2.1", byIp.request()).remaining())
			.as("the earlier key keeps its consumption").isEqualTo(8);
		assertThat(this.limiter.peek("key:third", later.request()).remaining())
			.as("the key after the denial was not decided").isEqualTo(9);
	}

	@Test
	void whenTheStoreCannotBeReachedFailOpenAdmitsWithoutFieldsAndFailClosedAnswers503() {
		try (JedisPooled closed = new JedisPooled("127.0.0.1", 1)) {
			RateLimitEnforcer enforcer = enforcer(new RedisRateLimiter(new JedisScriptExecutor(closed), "rl:"));

			TestRequest open = new TestRequest();
			enforcer.enforceAndWait(open, List.of(limit("open", 1, null, FailurePolicy.FAIL_OPEN)), this.context, new Reservation());
			assertThat(open.headers).isEmpty();

			assertThatExceptionOfType(RateLimitUnavailableException.class)
				.isThrownBy(() -> enforcer.enforceAndWait(new TestRequest(),
						List.of(limit("closed", 1, null, FailurePolicy.FAIL_CLOSED)), this.context, new Reservation()))
				.satisfies((unavailable) -> assertThat(unavailable.getStatusCode().value()).isEqualTo(503));
		}
	}

	@Test
	void aCallChargedByOutcomeIsAdmittedOnAReadAndChargedAfterwards() {
		RateLimitEnforcer enforcer = enforcer(this.limiter);
		List<ConfiguredLimit> limits = List.of(limit("login", 2, null, FailurePolicy.FAIL_OPEN));

		for (int i = 0; i < 2; i++) {
			TestRequest attempt = new TestRequest();
			List<LimitDecision> read = enforcer.byOutcome().peekAdmission(attempt, limits, this.context);
			assertThat(read).singleElement().satisfies((state) -> assertThat(state.allowed()).isTrue());
			enforcer.byOutcome().admitted(attempt);
			enforcer.byOutcome().charge(attempt, limits, this.context, List.of());
		}
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> enforcer.byOutcome().peekAdmission(new TestRequest(), limits, this.context));
		assertThat(this.limiter.decisions).as("two charges; the reads consume nothing").hasValue(2);
	}

	@Test
	void whenTheStoreFailsTheDecisionsObservationCarriesTheErrorAndThePolicysOutcome() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		try (JedisPooled closed = new JedisPooled("127.0.0.1", 1)) {
			RateLimitEnforcer enforcer = enforcer(new RedisRateLimiter(new JedisScriptExecutor(closed), "rl:"),
					new DecisionObservations(registry, null));
			enforcer.enforceAndWait(new TestRequest(), List.of(limit("open", 1, null, FailurePolicy.FAIL_OPEN)),
					this.context, new Reservation());
			assertThatExceptionOfType(RateLimitUnavailableException.class)
				.isThrownBy(() -> enforcer.enforceAndWait(new TestRequest(),
						List.of(limit("closed", 1, null, FailurePolicy.FAIL_CLOSED)), this.context, new Reservation()));
		}
		// the outcome is read when the observation stops: one that says fail-open or fail-closed has stopped
		TestObservationRegistryAssert.assertThat(registry)
			.hasNumberOfObservationsWithNameEqualTo("ratelimit.operations", 2)
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("limit", "open")
				.hasLowCardinalityKeyValue("outcome", "fail-open")
				.assertThatError()
				.as("the Redis client's failure, not the stage's wrapper")
				.isNotInstanceOf(CompletionException.class)
				.isNotInstanceOf(ExecutionException.class)
				.hasMessageContaining("127.0.0.1"))
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("limit", "closed")
				.hasLowCardinalityKeyValue("outcome", "fail-closed")
				.hasError());
	}

	@Test
	void anApplicationsConventionNamesTheObservationAndAddsItsKeyValues() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		RateLimitObservationConvention tiers = new DefaultRateLimitObservationConvention() {

			@Override
			public String getName() {
				return "shop.limits";
			}

			@Override
			public KeyValues getLowCardinalityKeyValues(RateLimitObservationContext context) {
				return super.getLowCardinalityKeyValues(context).and("tier", "free");
			}

		};
		RateLimitEnforcer enforcer = enforcer(this.limiter, new DecisionObservations(registry, tiers));
		enforcer.enforceAndWait(new TestRequest(), List.of(limit("api", 5, null, FailurePolicy.FAIL_OPEN)), this.context,
				new Reservation());
		TestObservationRegistryAssert.assertThat(registry)
			.hasSingleObservationThat()
			.hasNameEqualTo("shop.limits")
			.hasContextualNameEqualTo("ratelimit decision")
			.hasLowCardinalityKeyValue("tier", "free")
			.hasLowCardinalityKeyValue("limit", "api")
			.hasLowCardinalityKeyValue("algorithm", "token-bucket")
			.hasLowCardinalityKeyValue("outcome", "allowed")
			.hasBeenStopped();
	}

	@Test
	void aPredicateThatTurnsTheObservationsOffLeavesTheDecisionsAlone() {
		// what management.observations.enable.ratelimit=false registers: a predicate on the observation's name
		TestObservationRegistry registry = TestObservationRegistry.create();
		registry.observationConfig().observationPredicate((name, context) -> !name.startsWith("ratelimit"));
		RateLimitEnforcer enforcer = enforcer(this.limiter, new DecisionObservations(registry, null));
		List<ConfiguredLimit> limits = List.of(limit("api", 1, null, FailurePolicy.FAIL_OPEN));
		enforcer.enforceAndWait(new TestRequest(), limits, this.context, new Reservation());
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> enforcer.enforceAndWait(new TestRequest(), limits, this.context, new Reservation()));
		TestObservationRegistryAssert.assertThat(registry).doesNotHaveAnyObservation();
	}

	@Test
	void withANoopRegistryNothingIsObserved() {
		DecisionObservations none = new DecisionObservations(ObservationRegistry.NOOP, null);
		assertThat(none.enabled()).isFalse();
		assertThat(DecisionObservations.NONE.enabled()).isFalse();
		TestRequest request = new TestRequest();
		request.setAttribute(DecisionObservations.PARENT, Observation.start("caller", TestObservationRegistry.create()));
		assertThat(none.parent(request)).as("no parent looked up").isNull();
		enforcer(this.limiter, none).enforceAndWait(request, List.of(limit("api", 5, null, FailurePolicy.FAIL_OPEN)),
				this.context, new Reservation());
		assertThat(this.limiter.decisions).hasValue(1);
	}

	private RateLimitEnforcer enforcer(RateLimiter limiter) {
		return enforcer(limiter, DecisionObservations.NONE);
	}

	private RateLimitEnforcer enforcer(RateLimiter limiter, DecisionObservations observations) {
		RateLimitResponder responses = new RateLimitResponder(new RateLimitHeaderWriter(HeaderStyle.IETF),
				Duration.ofSeconds(1));
		RateLimitEventRecorder events = new RateLimitEventRecorder(Duration.ofSeconds(10));
		LocalFallback fallback = new LocalFallback(Duration.ofSeconds(1));
		RedisCaller redis = new RedisCaller(limiter, Duration.ofSeconds(2), new ThreadTimeoutScheduler(), events, fallback,
				observations);
		DecisionApplier answers = new DecisionApplier(responses, events, new ShadowDenialLogger(Duration.ofSeconds(10)),
				fallback);
		return new RateLimitEnforcer(redis, answers,
				new ClientKeyResolver(new DefaultListableBeanFactory(), MissingKeyPolicy.CLIENT_IP, responses),
				new DenialCache(true, Duration.ofSeconds(30), 100, System::nanoTime), observations);
	}

	/** A token bucket of {@code limit} per hour, by IP address or by {@code key}. */
	private static ConfiguredLimit limit(String name, long limit, String key, FailurePolicy policy) {
		LimitRequest request = LimitRequest
			.of(LimitDefinition.of(name, Algorithm.TOKEN_BUCKET, limit, Duration.ofHours(1)));
		return new ConfiguredLimit(new ConfiguredLimit.Budget(request, null, null),
				new ConfiguredLimit.ClientKey((key != null) ? new SpelExpressionParser().parseRaw(key) : null, false),
				new ConfiguredLimit.Origin(name, true), new ConfiguredLimit.Handling(policy, null, null), ConfiguredLimit.Planning.NONE);
	}

	/** The store's own limiter, its decisions counted. */
	private static final class CountingLimiter implements RateLimiter {

		private final RateLimiter store;

		private final AtomicInteger decisions = new AtomicInteger();

		CountingLimiter(RateLimiter store) {
			this.store = store;
		}

		@Override
		public RateLimitDecision tryAcquire(String clientId, List<LimitRequest> limits) {
			this.decisions.incrementAndGet();
			return this.store.tryAcquire(clientId, limits);
		}

		@Override
		public LimitDecision peek(String clientId, LimitRequest limit) {
			return this.store.peek(clientId, limit);
		}

	}

	/** A request from 192.0.2.1 whose response's header fields are kept. */
	private static final class TestRequest implements LimitedRequest {

		private final Map<String, Object> attributes = new HashMap<>();

		private final Map<String, List<String>> headers = new HashMap<>();

		@Override
		public String remoteAddress() {
			return "192.0.2.1";
		}

		@Override
		public String path() {
			return "/api";
		}

		@Override
		public Object getAttribute(String name) {
			return this.attributes.get(name);
		}

		@Override
		public void setAttribute(String name, Object value) {
			this.attributes.put(name, value);
		}

		@Override
		public void removeAttribute(String name) {
			this.attributes.remove(name);
		}

		@Override
		public List<String> responseHeader(String name) {
			return this.headers.getOrDefault(name, List.of());
		}

		@Override
		public void setResponseHeader(String name, String value) {
			this.headers.put(name, new ArrayList<>(List.of(value)));
		}

	}

}
