package dev.ratelimit.spring.autoconfigure.app;

import java.util.List;
import java.util.function.UnaryOperator;

import dev.ratelimit.core.JedisScriptExecutor;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.test.TestRedis;
import redis.clients.jedis.JedisPooled;

/**
 * A {@link RateLimiter} on a real Redis that decides at the time of a {@link TestClock} instead of the server's, so
 * tests make time pass without sleeping. It can also rewrite the limits it is given, to build requests that static
 * validation rules out (a cost larger than the bucket).
 */
public final class ClockedRateLimiter implements RateLimiter, AutoCloseable {

	private final JedisPooled jedis;

	private final RateLimiter delegate;

	private final TestClock clock;

	private final UnaryOperator<LimitDefinition> rewrite;

	public ClockedRateLimiter(TestRedis redis, String keyPrefix, TestClock clock) {
		this(redis, keyPrefix, clock, UnaryOperator.identity());
	}

	public ClockedRateLimiter(TestRedis redis, String keyPrefix, TestClock clock,
			UnaryOperator<LimitDefinition> rewrite) {
		this.jedis = new JedisPooled(redis.host(), redis.port());
		this.delegate = new RedisRateLimiter(new JedisScriptExecutor(this.jedis), keyPrefix);
		this.clock = clock;
		this.rewrite = rewrite;
	}

	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitDefinition> limits) {
		return tryAcquire(clientId, limits, this.clock.millis());
	}

	@Override
	public RateLimitDecision tryAcquire(String clientId, List<LimitDefinition> limits, long nowMs) {
		return this.delegate.tryAcquire(clientId, limits.stream().map(this.rewrite).toList(), nowMs);
	}

	@Override
	public void close() {
		this.jedis.close();
	}

}
