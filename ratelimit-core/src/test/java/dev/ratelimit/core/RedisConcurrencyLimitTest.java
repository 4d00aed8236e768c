package dev.ratelimit.core;

import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link ConcurrencyLimitContract} on a real Redis, and what only Redis has: the key and its members. */
class RedisConcurrencyLimitTest extends ConcurrencyLimitContract {

	private static final AtomicInteger PREFIXES = new AtomicInteger();

	private static final JedisPooled jedis = SharedJedis.get();

	private String prefix;

	@Override
	RateLimiter newLimiter() {
		this.prefix = "leases" + PREFIXES.incrementAndGet() + ":";
		return new RedisRateLimiter(new JedisScriptExecutor(jedis), this.prefix);
	}

	/**
	 * The key's PTTL. Explicit time runs far from Redis' own clock, but the TTL is relative: the latest expiry less
	 * the request's time, plus the margin.
	 */
	@Override
	long ttlMs(String client, LimitDefinition limit) {
		return jedis.pttl(new RedisKeys(this.prefix).key(client, limit));
	}

	@Test
	void theLeasesAreOneSortedSetUnderAKeyWithoutTheLeaseTime() {
		at(this.limiter, T0).tryAcquire("client", EXPORTS.request().withLease("lease-1"));
		String key = new RedisKeys(this.prefix).key("client", EXPORTS);
		assertThat(key).endsWith(":exports:cc");
		assertThat(jedis.zrangeWithScores(key, 0, -1)).singleElement().satisfies((member) -> {
			assertThat(member.getElement()).isEqualTo("lease-1");
			assertThat((long) member.getScore()).isEqualTo(T0 + 10_000);
		});
	}

}
