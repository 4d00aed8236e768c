package dev.ratelimit.spring.enforce;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.RateLimitReset;

/** The starter's {@link RateLimitReset}: the limiter's store, then what this instance remembers beside it. */
public final class StateReset implements RateLimitReset {

	private final RateLimiter limiter;

	private final PermitWaiter waits;

	/**
	 * @param limiter the limiter whose store is reset
	 * @param waits the waits for a permit, whose lines are reset, and whose enforcer's remembered denials and
	 * fail-local state are forgotten
	 */
	public StateReset(RateLimiter limiter, PermitWaiter waits) {
		this.limiter = limiter;
		this.waits = waits;
	}

	@Override
	public long resetAll() {
		try {
			return this.limiter.resetAll();
		}
		finally {
			// after the store: a denial remembered while the store was reset was decided on the state before it
			this.waits.enforcer().forgetLocalState();
			this.waits.reset();
		}
	}

}
