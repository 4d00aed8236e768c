package dev.ratelimit.dropin.host;

import java.util.Map;
import java.util.Optional;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

/** The settings of a Lettuce connection factory. Loaded only where Lettuce is on the class path. */
final class LettuceSettings {

	private LettuceSettings() {
	}

	static boolean describe(RedisConnectionFactory candidate, Map<String, String> report) {
		if (!(candidate instanceof LettuceConnectionFactory factory)) {
			return false;
		}
		report.put("lettuce.target", factory.getHostName() + ":" + factory.getPort() + "/" + factory.getDatabase());
		report.put("lettuce.sentinelAware", String.valueOf(factory.isRedisSentinelAware()));
		report.put("lettuce.clusterAware", String.valueOf(factory.isClusterAware()));
		report.put("lettuce.shareNativeConnection", String.valueOf(factory.getShareNativeConnection()));
		report.put("lettuce.validateConnection", String.valueOf(factory.getValidateConnection()));
		report.put("lettuce.eagerInitialization", String.valueOf(factory.getEagerInitialization()));
		LettuceClientConfiguration client = factory.getClientConfiguration();
		report.put("lettuce.clientConfiguration.class", OwnershipReport.typeName(client.getClass()));
		report.put("lettuce.commandTimeout", String.valueOf(client.getCommandTimeout()));
		report.put("lettuce.shutdownTimeout", String.valueOf(client.getShutdownTimeout()));
		report.put("lettuce.shutdownQuietPeriod", String.valueOf(client.getShutdownQuietPeriod()));
		report.put("lettuce.useSsl", String.valueOf(client.isUseSsl()));
		report.put("lettuce.clientName", String.valueOf(client.getClientName().orElse(null)));
		report.put("lettuce.readFrom", client.getReadFrom().map(Object::toString).orElse("none"));
		report.put("lettuce.clientResources",
				client.getClientResources().map((resources) -> OwnershipReport.typeName(resources.getClass()))
					.orElse("none"));
		boolean pooling = client instanceof LettucePoolingClientConfiguration;
		report.put("lettuce.pooling", String.valueOf(pooling));
		if (pooling) {
			GenericObjectPoolConfig<?> pool = ((LettucePoolingClientConfiguration) client).getPoolConfig();
			report.put("lettuce.pool.maxTotal", String.valueOf(pool.getMaxTotal()));
			report.put("lettuce.pool.maxIdle", String.valueOf(pool.getMaxIdle()));
			report.put("lettuce.pool.minIdle", String.valueOf(pool.getMinIdle()));
			report.put("lettuce.pool.maxWait", String.valueOf(pool.getMaxWaitDuration()));
		}
		describe("lettuce.clientOptions", client.getClientOptions(), report);
		// What the running client was given, which is what it applies.
		AbstractRedisClient nativeClient = factory.getNativeClient();
		report.put("lettuce.nativeClient.class",
				(nativeClient != null) ? OwnershipReport.typeName(nativeClient.getClass()) : "none");
		if (nativeClient instanceof RedisClient redisClient) {
			describe("lettuce.nativeClient.options", Optional.ofNullable(redisClient.getOptions()), report);
		}
		return true;
	}

	private static void describe(String prefix, Optional<ClientOptions> present, Map<String, String> report) {
		if (present.isEmpty()) {
			report.put(prefix, "none");
			return;
		}
		ClientOptions options = present.get();
		report.put(prefix + ".class", OwnershipReport.typeName(options.getClass()));
		report.put(prefix + ".autoReconnect", String.valueOf(options.isAutoReconnect()));
		report.put(prefix + ".disconnectedBehavior", String.valueOf(options.getDisconnectedBehavior()));
		report.put(prefix + ".requestQueueSize", String.valueOf(options.getRequestQueueSize()));
		report.put(prefix + ".protocolVersion", String.valueOf(options.getConfiguredProtocolVersion()));
		report.put(prefix + ".pingBeforeActivateConnection", String.valueOf(options.isPingBeforeActivateConnection()));
		TimeoutOptions timeouts = options.getTimeoutOptions();
		report.put(prefix + ".timeoutOptions.timeoutCommands", String.valueOf(timeouts.isTimeoutCommands()));
		report.put(prefix + ".timeoutOptions.applyConnectionTimeout",
				String.valueOf(timeouts.isApplyConnectionTimeout()));
		report.put(prefix + ".timeoutOptions.source", source(timeouts.getSource()));
		SocketOptions socket = options.getSocketOptions();
		report.put(prefix + ".socketOptions.connectTimeout", String.valueOf(socket.getConnectTimeout()));
		report.put(prefix + ".socketOptions.keepAlive", String.valueOf(socket.isKeepAlive()));
		report.put(prefix + ".socketOptions.tcpNoDelay", String.valueOf(socket.isTcpNoDelay()));
	}

	/** A fixed timeout source's timeout; one that depends on the command is reported as such. */
	private static String source(TimeoutOptions.TimeoutSource source) {
		if (source == null) {
			return "none";
		}
		try {
			return source.getTimeout(null) + " " + source.getTimeUnit();
		}
		catch (RuntimeException perCommand) {
			return OwnershipReport.typeName(source.getClass()) + " (per command)";
		}
	}

}
