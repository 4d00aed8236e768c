package dev.ratelimit.spring.observation;

import java.util.Locale;

/** What an observation of the limiter observes: the value of its {@code operation} key. */
public enum RateLimitOperation {

	/**
	 * The limits of one client key decided for a request or a call: one script call to Redis (all the limits whose
	 * client keys are equal), a denial this instance remembered, or the limits' failure policy when Redis fails.
	 */
	DECISION;

	/** The key value: the name in lower case, words joined by {@code -}. */
	public String value() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
