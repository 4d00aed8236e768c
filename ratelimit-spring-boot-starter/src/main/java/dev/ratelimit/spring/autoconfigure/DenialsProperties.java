package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;

/**
 * Denials answered locally: a client denied with a retry-after is answered by this instance, without Redis, until
 * that retry-after has passed or the maximum age, whichever comes first.
 */
public class DenialsProperties {

	/**
	 * Whether this instance answers a client it has just seen denied without asking Redis, until the denial's
	 * retry-after has passed (at most max-age).
	 */
	private boolean remember = true;

	/**
	 * Longest time a denial is answered locally: a reset or a plan change made through another instance reaches
	 * this one within it.
	 */
	private Duration maxAge = Duration.ofSeconds(1);

	/**
	 * Most clients whose denials are remembered at once; the least recently denied are forgotten first.
	 */
	private int maxClients = 10_000;

	public boolean isRemember() {
		return this.remember;
	}

	public void setRemember(boolean remember) {
		this.remember = remember;
	}

	public Duration getMaxAge() {
		return this.maxAge;
	}

	public void setMaxAge(Duration maxAge) {
		this.maxAge = maxAge;
	}

	public int getMaxClients() {
		return this.maxClients;
	}

	public void setMaxClients(int maxClients) {
		this.maxClients = maxClients;
	}

}
