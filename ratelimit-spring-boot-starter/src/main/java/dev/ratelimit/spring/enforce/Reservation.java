package dev.ratelimit.spring.enforce;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.limits.ConfiguredLimit;

/**
 * What a request holds until its call ends: the units its reserved limits took at admission, per client key, in
 * Redis or (while Redis failed) in this instance's memory, to be settled when the outcome is known
 * ({@link OutcomeCharger#settle}) or given back when the request does not go ahead ({@link OutcomeCharger#release}).
 * Limits that failed open hold nothing. Filled by {@link RateLimitEnforcer#reserveAndWait} and
 * {@link RateLimitEnforcer#reserve}; thread-safe.
 */
public final class Reservation {

	/**
	 * The units one client key's limits took.
	 * @param decision the admitting decision, whose limits carry the time they were decided at
	 * @param local whether this instance's memory took them (fail-local), rather than Redis
	 */
	record Held(String clientKey, List<ConfiguredLimit> limits, RateLimitDecision decision, boolean local) {
	}

	private final List<Held> held = new CopyOnWriteArrayList<>();

	void hold(String clientKey, List<ConfiguredLimit> limits, RateLimitDecision decision, boolean local) {
		if (decision.allowed()) {
			this.held.add(new Held(clientKey, limits, decision, local));
		}
	}

	List<Held> held() {
		return this.held;
	}

	/** Forgets what is held, once settled or released. */
	void clear() {
		this.held.clear();
	}

}
