package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.ratelimit.spring.redis.FailoverApplication.Instance;
import dev.ratelimit.spring.redis.FailoverTraffic.Kind;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

/**
 * A standalone Redis without persistence restarted under traffic: four instances (two with the limiter on Lettuce,
 * two on Jedis) send requests of a client that has used up its budget; the server is killed, then started again on
 * its port, empty. Measured per instance: the time from the restart (the process started) to the first answer
 * carrying Redis's fields (an admission: the counters are gone), and the requests that failed open in between, with
 * the bounds of {@link Failovers}.
 */
class StandaloneRestartIntegrationTests {

	@Test
	void restartedServer() {
		List<Instance> instances = new ArrayList<>();
		try (TestRedis redis = TestRedis.start()) {
			for (String client : List.of("lettuce", "jedis")) {
				for (int i = 1; i <= 2; i++) {
					instances.add(FailoverApplication.start(client + "-" + i, client,
							"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port()));
				}
			}
			String client = "standalone-client";
			Failovers.exhaust(instances, client);
			Outage outage = Failovers.outage(instances, client, redis::stop, (traffic, failed) -> {
				Failovers.awaitFailedOpen(traffic, instances, failed);
				long restarted = System.nanoTime();
				redis.restart();
				return restarted;
			}, Set.of(Kind.DENIED, Kind.ADMITTED));
			Failovers.assertResumed(outage, instances, "Standalone, restarted without persistence (recovery: the restart)");
		}
		finally {
			instances.forEach(Instance::close);
		}
	}

}
