package dev.ratelimit.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Redis Sentinel of the limiter's own Redis.
 */
public class RedisSentinelProperties {

	/**
	 * Name of the Redis server the sentinels monitor.
	 */
	private @Nullable String master;

	/**
	 * Sentinels as 'host:port' pairs.
	 */
	private List<String> nodes = new ArrayList<>();

	/**
	 * Login user name for the sentinels.
	 */
	private @Nullable String username;

	/**
	 * Password for the sentinels.
	 */
	private @Nullable String password;

	/**
	 * Database index on the master.
	 */
	private int database;

	public @Nullable String getMaster() {
		return this.master;
	}

	public void setMaster(@Nullable String master) {
		this.master = master;
	}

	public List<String> getNodes() {
		return this.nodes;
	}

	public void setNodes(List<String> nodes) {
		this.nodes = nodes;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public int getDatabase() {
		return this.database;
	}

	public void setDatabase(int database) {
		this.database = database;
	}

}
