package dev.ratelimit.spring.test.app;

import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.function.UnaryOperator;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.test.TestRedis;
import redis.clients.jedis.JedisPooled;

/**
 * A {@link RateLimiter} on a real Redis that decides at the time of a {@link TestClock} instead of the server's
 * ({@link RedisRateLimiter#withClock}), so tests make time pass without sleeping. It can also rewrite the limits it is given, to build requests that static
 * validation rules out (a cost larger than the bucket).
 *
 * <p>
 * Its Redis client is Jedis, which blocks. Given an executor (on WebFlux, where the limiter is asked on an event loop
 * that must never block), {@link #tryAcquireAsync} decides on that executor's threads, as the starter's own Jedis
 * client does on its own threads; without one, on the calling thread (Spring MVC's request thread, which may wait).
 * Either way the clock is read when the limiter is asked.
 */
public final class ClockedRateLimiter implements RateLimiter, AutoCloseable {

	private final JedisPooled jedis;

	private final RedisRateLimiter delegate;

	private final TestClock clock;

	private final UnaryOperator<LimitRequest> rewrite;

	private final ExecutorService executor;

	public ClockedRateLimiter(TestRedis redis, String keyPrefix, TestClock clock) {
		this(redis, keyPrefix, clock, UnaryOperator.identity(), null);
	}

	/**
	 * @param executor where {@link #tryAcquireAsync} decides, shut down by {@link #close}; or {@code null} to decide on
	 * the calling thread
	 */
	public ClockedRateLimiter(TestRedis redis, String keyPrefix, TestClock clock,
			UnaryOperator<LimitRequest> rewrite, ExecutorService executor) {
		this.jedis = new JedisPooled(redis.host(), redis.port());
		this.delegate = new RedisRateLimiter(new JedisScriptExecutor(this.jedis), keyPrefix);
		this.clock = clock;
		this.rewrite = rewrite;
		this.executor = executor;
	}

	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitRequest> limits) {
		return tryAcquire(clientId, limits, this.clock.millis());
	}

	private RateLimitDecision tryAcquire(String clientId, List<LimitRequest> limits, long nowMs) {
		return this.delegate.withClock(InstantSource.fixed(Instant.ofEpochMilli(nowMs)))
			.tryAcquire(clientId, limits.stream().map(this.rewrite).toList());
	}

	@Override
	public CompletionStage<RateLimitDecision> tryAcquireAsync(String clientId, List<LimitRequest> limits) {
		if (this.executor == null) {
			return RateLimiter.super.tryAcquireAsync(clientId, limits);
		}
		long nowMs = this.clock.millis();
		return CompletableFuture.supplyAsync(() -> tryAcquire(clientId, limits, nowMs), this.executor);
	}

	@Override
	public void close() {
		if (this.executor != null) {
			this.executor.shutdownNow();
		}
		this.jedis.close();
	}

}
