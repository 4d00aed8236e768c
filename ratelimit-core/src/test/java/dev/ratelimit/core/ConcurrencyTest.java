package dev.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.JedisPooled;

import static org.assertj.core.api.Assertions.assertThat;

/** Many threads on one key at one instant: the scripts are atomic, so exactly the limit is admitted. */
class ConcurrencyTest {

	private static final int THREADS = 16;

	private static final int REQUESTS_PER_THREAD = 50;

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void admittedUnitsEqualTheLimitExactly(Algorithm algorithm) throws Exception {
		TestRedis redis = TestRedis.shared();
		LimitDefinition limit = LimitDefinition.of("concurrent", algorithm, 137, Duration.ofSeconds(1));
		long now = 1_791_860_000_500L;
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try (JedisPooled jedis = new JedisPooled(redis.host(), redis.port())) {
			RateLimiter limiter = new RedisRateLimiter(new JedisScriptExecutor(jedis), "concurrency-" + algorithm + ":");
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> results = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				results.add(pool.submit(() -> {
					start.await();
					int admitted = 0;
					for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
						if (limiter.tryAcquire("one-client", limit, now).allowed()) {
							admitted++;
						}
					}
					return admitted;
				}));
			}
			start.countDown();
			int admitted = 0;
			for (Future<Integer> result : results) {
				admitted += result.get(60, TimeUnit.SECONDS);
			}
			assertThat(admitted).isEqualTo(137);
		}
		finally {
			pool.shutdownNow();
		}
	}

}
