package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.ratelimit.spring.redis.FailoverApplication.Instance;
import dev.ratelimit.spring.redis.FailoverTraffic.Answer;
import dev.ratelimit.spring.redis.FailoverTraffic.Kind;
import dev.ratelimit.test.TestRedisSentinel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sentinel failovers under traffic, with the limiter on Lettuce and on Jedis.
 *
 * <p>
 * A killed master: four instances (two on Lettuce, two on Jedis) send requests of a client that has used up its
 * budget; the master's process is killed; the Sentinel ({@code down-after-milliseconds} 1 s) promotes the replica,
 * seen by polling its role. Measured per instance: the time from the promotion to the first 429 carrying Redis's
 * fields, and the requests that failed open in between, with the bounds of {@link Failovers}.
 *
 * <p>
 * A Sentinel down at startup: the instances start while one of two Sentinels is down; it comes up, the other one
 * goes down, and the one that was down fails the master over ({@code SENTINEL FAILOVER}), the old master still
 * running. The limiter learns of a failover only from a Sentinel's {@code +switch-master}, so it must have subscribed
 * to the Sentinel that was down, or it would go on writing to the old master until the Sentinel turns it into a
 * replica, some 10 s later.
 */
class SentinelFailoverIntegrationTests {

	/** Lettuce asks a Sentinel it could not reach every second, Jedis every 5 s (its default). */
	static final Duration SUBSCRIBED = Duration.ofSeconds(5).plus(Failovers.MARGIN);

	/** How soon the limiter leaves the old master once a Sentinel announces the new one. */
	static final Duration SWITCHED = Duration.ofSeconds(1).plus(Failovers.MARGIN);

	@Test
	void killedMaster() {
		List<Instance> instances = new ArrayList<>();
		try (TestRedisSentinel redis = TestRedisSentinel.start()) {
			for (String client : List.of("lettuce", "jedis")) {
				for (int i = 1; i <= 2; i++) {
					instances.add(FailoverApplication.start(client + "-" + i, client,
							"spring.data.redis.sentinel.master=" + redis.masterName(),
							"spring.data.redis.sentinel.nodes=" + redis.sentinelNodes()));
				}
			}
			String client = "sentinel-client";
			Failovers.exhaust(instances, client);
			redis.awaitReplicaInSync();
			int replica = redis.replicaPort();
			Outage outage = Failovers.outage(instances, client, redis::killMaster,
					(traffic, failed) -> Failovers.awaitEvent("the replica promoted", () -> "master".equals(redis.role(replica)),
							Duration.ofSeconds(20)),
					Set.of(Kind.DENIED));
			Failovers.assertResumed(outage, instances, "Sentinel, killed master (recovery: the replica's promotion)");
		}
		finally {
			instances.forEach(Instance::close);
		}
	}

	@Test
	void failoverAnnouncedByASentinelThatWasDownAtStartup() {
		List<Instance> instances = new ArrayList<>();
		try (TestRedisSentinel redis = TestRedisSentinel.start(2)) {
			redis.stopSentinel(1);
			for (String client : List.of("lettuce", "jedis")) {
				instances.add(FailoverApplication.start(client, client,
						"spring.data.redis.sentinel.master=" + redis.masterName(),
						"spring.data.redis.sentinel.nodes=" + redis.sentinelNodes()));
			}
			String client = "sentinel-down-client";
			Failovers.exhaust(instances, client);
			redis.restartSentinel(1);
			int second = redis.sentinelPorts().get(1);
			long restarted = System.nanoTime();
			Failovers.awaitEvent("every instance subscribed to the Sentinel that was down",
					() -> subscribers(redis, second) == instances.size(), SUBSCRIBED);
			System.out.printf(Locale.ROOT, "Sentinel down at startup: subscribed %.2f s after it came up%n",
					(System.nanoTime() - restarted) / 1e9);
			redis.stopSentinel(0);
			int oldMaster = redis.masterPort();
			int newMaster = redis.failover(1);
			long announced = System.nanoTime();
			Failovers.awaitEvent("no connection of the limiter left on the old master",
					() -> limiterConnections(redis, oldMaster) == 0, SWITCHED);
			System.out.printf(Locale.ROOT, "  the limiter left the old master %.2f s after the Sentinel switched%n",
					(System.nanoTime() - announced) / 1e9);
			// The state written before is on the new master, and so are the decisions from now on.
			for (Instance instance : instances) {
				Answer answer = FailoverTraffic.once(instance, client);
				assertThat(answer.kind()).as(answer.toString()).isEqualTo(Kind.DENIED);
				Answer fresh = FailoverTraffic.once(instance, "fresh-" + instance.name());
				assertThat(fresh.kind()).as(fresh.toString()).isEqualTo(Kind.ADMITTED);
			}
			assertThat(limiterConnections(redis, newMaster)).isPositive();
			assertThat(limiterConnections(redis, oldMaster)).isZero();
		}
		finally {
			instances.forEach(Instance::close);
		}
	}

	/** The limiter's connections (named "ratelimit") subscribed to a channel on the server on {@code port}. */
	private static long subscribers(TestRedisSentinel redis, int port) {
		return clients(redis, port).lines().filter((line) -> line.contains(" sub=1 ")).count();
	}

	/** The number of the limiter's connections (named "ratelimit") on the server on {@code port}. */
	private static long limiterConnections(TestRedisSentinel redis, int port) {
		return clients(redis, port).lines().count();
	}

	private static String clients(TestRedisSentinel redis, int port) {
		return String.join("\n", String.valueOf(redis.call(port, "CLIENT", "LIST"))
			.lines()
			.filter((line) -> line.contains(" name=ratelimit "))
			.toList());
	}

}
