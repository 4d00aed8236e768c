package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.limits.LimitSettings;

/**
 * The usage that limits record with 'usage' set: the units each client used per period, listed by the ratelimits
 * endpoint.
 */
public class UsageProperties implements LimitSettings.Usage {

	/**
	 * Most clients whose usage a limit records per period; at the cap, a new client's units are counted together as
	 * the period's overflow. About 120 bytes of Redis memory per client.
	 */
	// UsageRecording.DEFAULT_MAX_CLIENTS, written out: the configuration metadata takes a literal default only
	private int maxClients = 100_000;

	@Override
	public int getMaxClients() {
		return this.maxClients;
	}

	public void setMaxClients(int maxClients) {
		this.maxClients = maxClients;
	}

}
