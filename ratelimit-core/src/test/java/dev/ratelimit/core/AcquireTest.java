package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RateLimiter#acquire} on both backends, on their real clocks: here the time waited is the behaviour, so it is
 * measured, with a margin above the expected wait that holds on a loaded machine. Each backend is wrapped to count
 * the decisions acquire asks for; the decisions themselves are the backend's.
 */
class AcquireTest {

	/**
	 * 2 tokens, one more every second: slow enough that a loaded machine's pause between using up the tokens and the
	 * call under test (hundreds of ms under verify-under-load) does not refill one, which would admit the call at once.
	 */
	private static final LimitDefinition LIMIT = LimitDefinition.of("acquire", Algorithm.TOKEN_BUCKET, 2,
			Duration.ofSeconds(2));

	/** Generous against scheduling delays on a busy machine, far below a second wait of the limit. */
	private static final long MARGIN_MS = 250;

	private static final AtomicInteger PREFIXES = new AtomicInteger();

	static Stream<Arguments> backends() {
		return Stream.of(Arguments.of("redis", new RedisRateLimiter(new JedisScriptExecutor(SharedJedis.get()),
				"acquire" + PREFIXES.incrementAndGet() + ":")), Arguments.of("in-memory", new InMemoryRateLimiter()));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("backends")
	void aDeniedCallWaitsExactlyTheRetryAfterAndAsksOnceMore(String backend, RateLimiter limiter) throws Exception {
		Counting counting = new Counting(limiter);
		String client = "waits-" + System.nanoTime();
		assertThat(counting.tryAcquire(client, LIMIT).allowed()).isTrue();
		assertThat(counting.tryAcquire(client, LIMIT).allowed()).isTrue();
		counting.calls.set(0);
		counting.decisions.clear();

		long start = System.nanoTime();
		RateLimitDecision decision = counting.acquire(client, List.of(LIMIT.request()), Duration.ofSeconds(2));
		long waitedMs = (System.nanoTime() - start) / 1_000_000;

		assertThat(decision.allowed()).isTrue();
		assertThat(counting.calls).as("decisions for one permit after one wait: no polling").hasValue(2);
		RateLimitDecision denial = counting.decisions.get(0);
		assertThat(denial.allowed()).isFalse();
		long retryAfterMs = denial.retryAfterMs().orElseThrow();
		assertThat(retryAfterMs).isBetween(1L, 1000L);
		assertThat(waitedMs).isBetween(retryAfterMs, retryAfterMs + MARGIN_MS);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("backends")
	void aWaitLongerThanMaxWaitIsNotWaited(String backend, RateLimiter limiter) throws Exception {
		Counting counting = new Counting(limiter);
		String client = "impatient-" + System.nanoTime();
		counting.tryAcquire(client, LIMIT);
		counting.tryAcquire(client, LIMIT);
		counting.calls.set(0);

		long start = System.nanoTime();
		RateLimitDecision decision = counting.acquire(client, List.of(LIMIT.request()), Duration.ofMillis(50));
		long tookMs = (System.nanoTime() - start) / 1_000_000;

		assertThat(decision.allowed()).isFalse();
		long retryAfterMs = decision.retryAfterMs().orElseThrow();
		assertThat(retryAfterMs).isGreaterThan(50);
		assertThat(counting.calls).hasValue(1);
		assertThat(tookMs).as("gave up without sleeping").isLessThan(retryAfterMs);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("backends")
	void aCostThatCanNeverFitIsAnsweredAtOnce(String backend, RateLimiter limiter) throws Exception {
		Counting counting = new Counting(limiter);
		RateLimitDecision decision = counting.acquire("never-" + System.nanoTime(), List.of(LIMIT.request(3)),
				Duration.ofHours(1));
		assertThat(decision.never()).isTrue();
		assertThat(counting.calls).hasValue(1);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("backends")
	void anAdmittedCallDoesNotWait(String backend, RateLimiter limiter) throws Exception {
		Counting counting = new Counting(limiter);
		assertThat(counting.acquire("first-" + System.nanoTime(), List.of(LIMIT.request()), Duration.ZERO).allowed()).isTrue();
		assertThat(counting.calls).hasValue(1);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("backends")
	void aNegativeMaxWaitIsRejected(String backend, RateLimiter limiter) {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> limiter.acquire("negative", List.of(LIMIT.request()), Duration.ofMillis(-1)))
			.withMessageContaining("maxWait");
	}

	/** The backend's decisions, counted; acquire is the interface's own. */
	private static final class Counting implements RateLimiter {

		private final RateLimiter delegate;

		private final AtomicInteger calls = new AtomicInteger();

		private final List<RateLimitDecision> decisions = new CopyOnWriteArrayList<>();

		Counting(RateLimiter delegate) {
			this.delegate = delegate;
		}

		@Override
		public RateLimitDecision tryAcquire(String clientId, List<LimitRequest> limits) {
			this.calls.incrementAndGet();
			RateLimitDecision decision = this.delegate.tryAcquire(clientId, limits);
			this.decisions.add(decision);
			return decision;
		}

		@Override
		public RateLimiter withClock(java.time.InstantSource clock) {
			throw new AssertionError("acquire decides at the store's time");
		}

	}

}
