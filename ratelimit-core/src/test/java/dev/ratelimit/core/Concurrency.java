package dev.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads on one client at one instant, for every backend ({@link RedisConcurrencyTest},
 * {@link InMemoryConcurrencyTest}): a decision is atomic, so exactly what a sequential run admits is admitted, and
 * several limits of one request stay all or nothing under contention.
 */
abstract class Concurrency {

	private static final int THREADS = 16;

	private static final int REQUESTS_PER_THREAD = 50;

	static final long NOW = 1_791_860_000_500L;

	private ExecutorService pool;

	/** A limiter with no state, its keys (if any) under {@code prefix}. */
	abstract RateLimiter newLimiter(String prefix);

	@BeforeEach
	void startPool() {
		this.pool = Executors.newFixedThreadPool(THREADS);
	}

	@AfterEach
	void stopPool() {
		this.pool.shutdownNow();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void admittedUnitsEqualTheLimitExactly(Algorithm algorithm) throws Exception {
		LimitDefinition limit = LimitDefinition.of("concurrent", algorithm, 137, Duration.ofSeconds(1));
		RateLimiter limiter = newLimiter("concurrency-" + algorithm + ":");
		int admitted = inParallel((thread) -> {
			int count = 0;
			for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
				if (at(limiter, NOW).tryAcquire("one-client", limit).allowed()) {
					count++;
				}
			}
			return count;
		});
		assertThat(THREADS * REQUESTS_PER_THREAD).isGreaterThan(137);
		assertThat(admitted).isEqualTo(137);
	}

	/**
	 * Four limits of one client, each request on all four (each thread in its own order of the limits), all at one
	 * instant. Sequentially, a request is admitted as long as every limit has room for it: 60 requests, the
	 * smallest limit, after which that limit denies every request and, all or nothing, no other limit consumes
	 * any more. So exactly 60 are admitted, and the other limits have exactly their limit minus 60 left, read
	 * afterwards with a request whose cost can never fit (it consumes nothing and reports what is left).
	 */
	@Test
	void severalLimitsOfOneClientStayAllOrNothingUnderContention() throws Exception {
		List<LimitDefinition> limits = List.of(
				LimitDefinition.of("fw", Algorithm.FIXED_WINDOW, 100, Duration.ofSeconds(1)),
				LimitDefinition.of("sl", Algorithm.SLIDING_LOG, 60, Duration.ofSeconds(1)),
				LimitDefinition.of("tb", Algorithm.TOKEN_BUCKET, 80, Duration.ofSeconds(1)),
				LimitDefinition.of("swc", Algorithm.SLIDING_WINDOW_COUNTER, 200, Duration.ofSeconds(1)));
		RateLimiter limiter = newLimiter("concurrency-several:");
		int admitted = inParallel((thread) -> {
			List<LimitRequest> order = new ArrayList<>(limits.stream().map(LimitDefinition::request).toList());
			Collections.shuffle(order, new Random(thread));
			int count = 0;
			for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
				RateLimitDecision decision = at(limiter, NOW).tryAcquire("one-client", order);
				assertThat(decision.decisions()).extracting(LimitDecision::request).isEqualTo(order);
				if (decision.allowed()) {
					count++;
				}
			}
			return count;
		});
		assertThat(admitted).isEqualTo(60);
		long[] left = new long[limits.size()];
		for (int i = 0; i < limits.size(); i++) {
			LimitDefinition limit = limits.get(i);
			RateLimitDecision probe = at(limiter, NOW).tryAcquire("one-client", limit.request(limit.limit() + 1));
			assertThat(probe.never()).isTrue();
			left[i] = probe.remaining();
		}
		assertThat(left).containsExactly(100 - 60, 0, 80 - 60, 200 - 60);
	}

	private interface Work {

		int run(int thread) throws Exception;

	}

	/** Runs {@code work} on {@link #THREADS} threads released at once; the sum of their results. */
	private int inParallel(Work work) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<Integer>> results = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			int thread = t;
			Callable<Integer> task = () -> {
				start.await();
				return work.run(thread);
			};
			results.add(this.pool.submit(task));
		}
		start.countDown();
		int sum = 0;
		for (Future<Integer> result : results) {
			sum += result.get(60, TimeUnit.SECONDS);
		}
		return sum;
	}

}
