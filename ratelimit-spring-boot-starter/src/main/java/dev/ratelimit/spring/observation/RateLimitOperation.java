package dev.ratelimit.spring.observation;

import java.util.Locale;

/** What an observation of the limiter observes: the value of its {@code operation} key. */
public enum RateLimitOperation {

	/**
	 * The limits of one client key decided for a request or a call: one script call to Redis (all the limits whose
	 * client keys are equal), a denial this instance remembered, or the limits' failure policy when Redis fails.
	 */
	DECISION,

	/**
	 * A call's wait for a permit or a lease ({@code maxWait}, a rule's {@code max-wait}), from its first pause until
	 * it is admitted ({@code allowed}), gives up ({@code denied}) or its caller goes away ({@code cancelled}); the
	 * decisions after the first are under it.
	 */
	WAIT,

	/**
	 * A call charged by outcome, charged after it ran ({@code allowed}: charged, {@code denied}: no room left, the
	 * failure policy's outcome when Redis fails), or a reservation settled ({@code settled}, {@code local},
	 * {@code failed}): one script call per client key.
	 */
	SETTLEMENT,

	/**
	 * A concurrency limit's lease renewed while its call runs, every third of the lease time: {@code renewed},
	 * {@code lost} (the limit was full when the renewal had to take it again) or {@code failed}. Not under a request:
	 * a trace of its own.
	 */
	LEASE_RENEWAL,

	/** A concurrency limit's lease given back when its call ends: {@code released} or {@code failed}. */
	LEASE_RELEASE;

	/** Computed once: read twice by every observation (its tags and its contextual name). */
	private final String value = name().toLowerCase(Locale.ROOT).replace('_', '-');

	/** The key value: the name in lower case, words joined by {@code -}. */
	public String value() {
		return this.value;
	}

}
