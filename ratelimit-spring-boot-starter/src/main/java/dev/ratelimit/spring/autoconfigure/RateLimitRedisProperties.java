package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The limiter's own Redis client. By default it talks to the Redis of the application's connection details
 * (spring.data.redis.*), with its own connections and timeouts; the application's connection factory is left as
 * it is.
 */
public class RateLimitRedisProperties {

	/**
	 * Longest time one request spends in the limiter, however many limits and client keys apply: the wait for a
	 * connection, the script and any reload of it. When it passes, the limits' failure policy applies.
	 */
	private Duration timeout = Duration.ofMillis(250);

	/**
	 * Time allowed to open a connection to Redis. Connections are opened in the background; a request never waits
	 * longer than 'ratelimit.redis.timeout' for one.
	 */
	private Duration connectTimeout = Duration.ofSeconds(2);

	/**
	 * Client library of the limiter: 'auto' uses Lettuce when it is on the class path, else Jedis; 'lettuce' or
	 * 'jedis' choose one when both are present.
	 */
	private ClientType client = ClientType.AUTO;

	/**
	 * Redis URL of a Redis for the limiter alone, such as 'redis://user:secret@limits.example.com:6379/0'
	 * ('rediss://' for TLS). Unset, the limiter uses the application's Redis.
	 */
	private @Nullable String url;

	/**
	 * Name of a Spring SSL bundle (spring.ssl.bundle.*) for the limiter's own Redis: its trust (and key) material
	 * for TLS, say for a certificate of a private CA. Applies to 'url', 'sentinel' and 'cluster', and turns TLS on;
	 * unset, a 'rediss://' URL trusts the JVM's default trust store.
	 */
	private @Nullable String sslBundle;

	/**
	 * Password of the limiter's Redis when it is given by 'sentinel' or 'cluster' rather than 'url'.
	 */
	private @Nullable String password;

	/**
	 * Login user name of the limiter's Redis when it is given by 'sentinel' or 'cluster' rather than 'url'.
	 */
	private @Nullable String username;

	/**
	 * Sentinel setup of a Redis for the limiter alone.
	 */
	@NestedConfigurationProperty
	private final RedisSentinelProperties sentinel = new RedisSentinelProperties();

	/**
	 * Cluster of a Redis for the limiter alone.
	 */
	private final Cluster cluster = new Cluster();

	/**
	 * Number of connections of the Jedis client, which runs one command per connection at a time. Lettuce
	 * pipelines every command on one connection and has no pool.
	 */
	private int jedisPoolSize = 32;

	/**
	 * Retry-After of the 503 answered when Redis fails and the limit is 'fail-closed'.
	 */
	private Duration unavailableRetryAfter = Duration.ofSeconds(1);

	/**
	 * Minimum time between two WARN log lines about Redis failures; failures in between are counted only.
	 */
	private Duration failureLogInterval = Duration.ofSeconds(10);

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

	public ClientType getClient() {
		return this.client;
	}

	public void setClient(ClientType client) {
		this.client = client;
	}

	public @Nullable String getUrl() {
		return this.url;
	}

	public void setUrl(@Nullable String url) {
		this.url = url;
	}

	public @Nullable String getSslBundle() {
		return this.sslBundle;
	}

	public void setSslBundle(@Nullable String sslBundle) {
		this.sslBundle = sslBundle;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public RedisSentinelProperties getSentinel() {
		return this.sentinel;
	}

	public Cluster getCluster() {
		return this.cluster;
	}

	public int getJedisPoolSize() {
		return this.jedisPoolSize;
	}

	public void setJedisPoolSize(int jedisPoolSize) {
		this.jedisPoolSize = jedisPoolSize;
	}

	public Duration getUnavailableRetryAfter() {
		return this.unavailableRetryAfter;
	}

	public void setUnavailableRetryAfter(Duration unavailableRetryAfter) {
		this.unavailableRetryAfter = unavailableRetryAfter;
	}

	public Duration getFailureLogInterval() {
		return this.failureLogInterval;
	}

	public void setFailureLogInterval(Duration failureLogInterval) {
		this.failureLogInterval = failureLogInterval;
	}

	/**
	 * The limiter's client library.
	 */
	public enum ClientType {

		/** Lettuce when it is on the class path, else Jedis. */
		AUTO,

		/** Lettuce: one pipelined connection, asynchronous. */
		LETTUCE,

		/** Jedis: a pool of connections. */
		JEDIS

	}

	/**
	 * Redis Cluster of the limiter's own Redis.
	 */
	public static class Cluster {

		/**
		 * Initial cluster nodes as 'host:port' pairs; at least one.
		 */
		private List<String> nodes = new ArrayList<>();

		public List<String> getNodes() {
			return this.nodes;
		}

		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

	}

}
