package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;

/**
 * Limits with the 'fail-local' failure policy while Redis fails: each instance decides them in its own memory.
 */
public class FailLocalProperties {

	/**
	 * Number of instances that share a limit while Redis fails: each instance then allows the limit (and the
	 * token bucket's capacity) divided by this number, rounded down. 1 gives every instance the whole limit.
	 */
	private int instances = 1;

	/**
	 * After a Redis failure, how long fail-local limits are decided locally without asking Redis; then one request
	 * asks Redis again, and the others stay local until it answers.
	 */
	private Duration probeInterval = Duration.ofSeconds(1);

	public int getInstances() {
		return this.instances;
	}

	public void setInstances(int instances) {
		this.instances = instances;
	}

	public Duration getProbeInterval() {
		return this.probeInterval;
	}

	public void setProbeInterval(Duration probeInterval) {
		this.probeInterval = probeInterval;
	}

}
