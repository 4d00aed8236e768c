package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.redis.JedisChannelSubscriber;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.core.redis.LettuceChannelSubscriber;
import dev.ratelimit.test.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Protocol;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link ConcurrencyLimitContract} on a real Redis, and what only Redis has: the key, its members, pub/sub. */
class RedisConcurrencyLimitTest extends ConcurrencyLimitContract {

	private static final AtomicInteger PREFIXES = new AtomicInteger();

	private static final JedisPooled jedis = SharedJedis.get();

	private String prefix;

	@Override
	RateLimiter newLimiter() {
		this.prefix = "leases" + PREFIXES.incrementAndGet() + ":";
		return new RedisRateLimiter(new JedisScriptExecutor(jedis), this.prefix);
	}

	/** Through a Jedis subscriber; {@link #lettuceSubscribersHearTheSameAndSubscribeAgainAfterALostConnection} too. */
	@Override
	LeaseReleases releases() {
		TestRedis redis = TestRedis.shared();
		return ((RedisRateLimiter) this.limiter)
			.releases(new JedisChannelSubscriber(() -> new JedisPooled(redis.host(), redis.port())));
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

	@Test
	void aPrefixWithGlobCharactersIsMatchedLiterally() {
		assertThat(new RedisKeys("a*b?[c]\\:").leasePattern()).isEqualTo("a\\*b\\?\\[c\\]\\\\:*");
	}

	@Test
	void jedisSubscribersSubscribeAgainAfterALostConnection() throws Exception {
		Announcements announced = new Announcements();
		try (LeaseReleases releases = releases()) {
			releases.listen(announced).get(10, TimeUnit.SECONDS);
			assertAnnouncedAfterTheConnectionIsKilled(releases, announced);
		}
	}

	@Test
	void lettuceSubscribersHearTheSameAndSubscribeAgainAfterALostConnection() throws Exception {
		TestRedis redis = TestRedis.shared();
		RedisClient client = RedisClient.create();
		RedisURI uri = RedisURI.create(redis.host(), redis.port());
		Announcements announced = new Announcements();
		try (LeaseReleases releases = ((RedisRateLimiter) this.limiter).releases(new LettuceChannelSubscriber(
				() -> client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture(),
				() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2))))) {
			releases.listen(announced).get(10, TimeUnit.SECONDS);
			fillAndRelease("client", T0);
			assertThat(announced.next()).isEqualTo(releases.channel("client", EXPORTS));
			assertAnnouncedAfterTheConnectionIsKilled(releases, announced);
		}
	}

	/**
	 * The subscriber's connection killed: it subscribes again (told to the listener) and hears the next release. A
	 * release while it is away may go unheard: that is what the listener's {@code subscribed} is for.
	 */
	private void assertAnnouncedAfterTheConnectionIsKilled(LeaseReleases releases, Announcements announced)
			throws Exception {
		int before = announced.subscriptions.get();
		Object killed = jedis.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub");
		assertThat((Long) killed).isPositive();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (announced.subscriptions.get() == before && System.nanoTime() < deadline) {
			CompletableFuture.runAsync(() -> {
			}, CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)).join();
		}
		assertThat(announced.subscriptions.get()).as("subscribed again").isGreaterThan(before);
		announced.channels.clear();
		fillAndRelease("again", T0);
		assertThat(announced.next()).isEqualTo(releases.channel("again", EXPORTS));
	}

	private void fillAndRelease(String client, long now) {
		LimitDecision first = acquire(client, EXPORTS, "x", now);
		acquire(client, EXPORTS, "y", now);
		at(this.limiter, now + 1).settle(client, List.of(Settlement.of(first, 0)));
	}

}
