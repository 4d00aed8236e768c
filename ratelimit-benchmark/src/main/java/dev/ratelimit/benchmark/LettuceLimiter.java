package dev.ratelimit.benchmark;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.redis.EventLoopTimeouts;
import dev.ratelimit.core.redis.FairDeadlines;
import dev.ratelimit.core.redis.LettuceScriptExecutor;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.jspecify.annotations.Nullable;

/**
 * {@link RedisRateLimiter} on a {@link LettuceScriptExecutor} built as the starter builds its own Lettuce client
 * ({@code LettuceClients} in the starter): one connection on which concurrent decisions are pipelined (and, where the
 * limiter batches them, share a script call), one I/O thread that also runs the deadlines, the decision scripts of
 * each algorithm loaded on connecting, no automatic reconnect. Its blocking calls wait up to 10 s, as the http part's
 * applications do ({@code ratelimit.redis.timeout=10s}), so that no decision of a loaded machine fails. Beside it, a
 * second connection of the same client for {@code PING}, the floor of a round trip on Lettuce.
 */
final class LettuceLimiter implements AutoCloseable {

	/** What the starter loads on every connection: a decision's script for each algorithm alone. */
	private static final List<LuaScript> SCRIPTS = Arrays.stream(Algorithm.values())
		.map((algorithm) -> LuaScript.rateLimit(List.of(algorithm)))
		.toList();

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final RedisClient client;

	private final LettuceScriptExecutor executor;

	private final StatefulRedisConnection<String, String> pings;

	/** Connects the executor (loading the scripts) and the connection for {@code PING}. */
	LettuceLimiter(String host, int port) {
		AtomicReference<@Nullable ClientResources> built = new AtomicReference<>();
		EventLoopTimeouts deadlines = new EventLoopTimeouts(() -> Objects.requireNonNull(built.get()).eventExecutorGroup());
		ClientResources resources = DefaultClientResources.builder()
			.ioThreadPoolSize(1)
			.computationThreadPoolSize(2)
			.nettyCustomizer(deadlines)
			.build();
		built.set(resources);
		this.client = RedisClient.create(resources);
		this.client.setOptions(ClientOptions.builder()
			.timeoutOptions(TimeoutOptions.enabled(TIMEOUT.multipliedBy(FairDeadlines.BACKSTOP)))
			.autoReconnect(false)
			.build());
		RedisURI uri = RedisURI.builder().withHost(host).withPort(port).withTimeout(TIMEOUT).build();
		this.executor = new LettuceScriptExecutor(
				() -> this.client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture(), SCRIPTS, TIMEOUT,
				deadlines, () -> {
					this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
					resources.shutdown(0, 2, TimeUnit.SECONDS);
				});
		this.executor.connect().join();
		this.pings = this.client.connect(StringCodec.UTF8, uri);
	}

	/** The executor: one script call per {@code execute}, as the http part's {@code /script} endpoint makes. */
	LettuceScriptExecutor executor() {
		return this.executor;
	}

	/** A limiter on the executor, keys under {@code prefix}. */
	RedisRateLimiter limiter(String prefix) {
		return new RedisRateLimiter(this.executor, prefix);
	}

	/** One {@code PING} on the second connection, waited for. */
	String ping() {
		return this.pings.async().ping().toCompletableFuture().join();
	}

	@Override
	public void close() {
		this.pings.close();
		this.executor.close();
	}

}
