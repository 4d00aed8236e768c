package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link LettuceClusterTopology}: which failures refresh the topology, and how often, on a clock the test moves. */
class LettuceClusterTopologyTests {

	private final AtomicLong now = new AtomicLong();

	private final AtomicInteger refreshes = new AtomicInteger();

	private final LettuceClusterTopology topology = new LettuceClusterTopology(() -> {
		this.refreshes.incrementAndGet();
		return CompletableFuture.completedFuture(null);
	}, new OncePerInterval(Duration.ofSeconds(1), this.now::get));

	@Test
	void failuresATopologyChangeMayExplainRefreshIt() {
		assertThat(LettuceClusterTopology.topologyMayExplain(new RedisCommandTimeoutException("timed out"))).isTrue();
		assertThat(LettuceClusterTopology
			.topologyMayExplain(new RedisException("Currently not connected. Commands are rejected."))).isTrue();
		assertThat(LettuceClusterTopology.topologyMayExplain(new RedisConnectionException("Unable to connect"))).isTrue();
		assertThat(LettuceClusterTopology
			.topologyMayExplain(new RedisCommandExecutionException("CLUSTERDOWN The cluster is down"))).isTrue();
		assertThat(LettuceClusterTopology
			.topologyMayExplain(new RedisCommandExecutionException("READONLY You can't write against a read only replica.")))
			.isTrue();
	}

	@Test
	void errorsOfTheCommandItselfDoNot() {
		assertThat(LettuceClusterTopology
			.topologyMayExplain(new RedisCommandExecutionException("NOSCRIPT No matching script."))).isFalse();
		assertThat(LettuceClusterTopology
			.topologyMayExplain(new RedisCommandExecutionException("ERR Error running script"))).isFalse();
	}

	@Test
	void failuresRefreshAtMostOncePerSecond() {
		for (int i = 0; i < 10; i++) {
			this.topology.commandFailed(failed(new RedisCommandTimeoutException("timed out")));
		}
		assertThat(this.refreshes).hasValue(1);
		this.now.addAndGet(Duration.ofMillis(999).toNanos());
		this.topology.commandFailed(failed(new RedisCommandTimeoutException("timed out")));
		assertThat(this.refreshes).hasValue(1);
		this.now.addAndGet(Duration.ofMillis(1).toNanos());
		this.topology.commandFailed(failed(new RedisCommandExecutionException("NOSCRIPT No matching script.")));
		assertThat(this.refreshes).hasValue(1);
		this.topology.commandFailed(failed(new RedisCommandTimeoutException("timed out")));
		assertThat(this.refreshes).hasValue(2);
	}

	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static CommandFailedEvent failed(Throwable cause) {
		Command command = new Command<>(CommandType.EVALSHA, new StatusOutput<>(StringCodec.UTF8));
		return new CommandFailedEvent(command, new HashMap<>(), cause);
	}

}
