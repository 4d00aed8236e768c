package dev.ratelimit.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import redis.clients.jedis.JedisPooled;

/**
 * Bucket4j's token bucket on the same Jedis pool ({@code Bucket4jJedis.casBasedBuilder}: a compare-and-swap of the
 * bucket's state, which may take several round trips under contention), the Java peer users compare with. Admitting:
 * 10^9 tokens refilled with 10^9 per second; denying: 1 token per hour. One bucket proxy per client, built once.
 */
final class Bucket4jScenario {

	private final BucketProxy[] buckets;

	Bucket4jScenario(JedisPooled jedis, String[] clients, boolean admitting) {
		ProxyManager<byte[]> buckets = Bucket4jJedis.casBasedBuilder(jedis)
			.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
		BucketConfiguration configuration = admitting
				? BucketConfiguration.builder()
					.addLimit((limit) -> limit.capacity(1_000_000_000).refillGreedy(1_000_000_000, Duration.ofSeconds(1)))
					.build()
				: BucketConfiguration.builder()
					.addLimit((limit) -> limit.capacity(1).refillGreedy(1, Duration.ofHours(1)))
					.build();
		this.buckets = new BucketProxy[clients.length];
		for (int i = 0; i < clients.length; i++) {
			byte[] key = ("bench:bucket4j:" + (admitting ? "admit:" : "deny:") + clients[i])
				.getBytes(StandardCharsets.UTF_8);
			this.buckets[i] = buckets.builder().build(key, () -> configuration);
		}
	}

	boolean decide(int client) {
		return this.buckets[client].tryConsume(1);
	}

}
