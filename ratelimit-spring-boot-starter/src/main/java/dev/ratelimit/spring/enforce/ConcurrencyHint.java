package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;

/**
 * What a concurrency limit's denial announces (docs/HTTP.md, "Concurrency limits"): a lease comes back when a running
 * call ends, which no one can know, so its {@code Retry-After} is a hint of {@value #HINT_MS} ms rather than the
 * earliest lease expiry the core reports (when a lease is certain to be back only if its holder stops renewing it).
 * Applied where a decision becomes an answer, so that the 429 and its fields read the hint; a caller waiting for a
 * lease is woken by its release instead ({@link LeaseWaits}), and retries after the hint only when releases are not
 * announced.
 */
final class ConcurrencyHint {

	/** The {@code Retry-After} of a concurrency denial: 1 s, the least delay-seconds there is. */
	static final long HINT_MS = 1000;

	private ConcurrencyHint() {
	}

	/** {@code decision} with each concurrency denial's retry-after the hint; {@code decision} itself when none. */
	static RateLimitDecision announced(RateLimitDecision decision) {
		// a loop, no stream: this runs on every decision
		List<LimitDecision> announced = null;
		for (int i = 0; i < decision.decisions().size(); i++) {
			LimitDecision limit = decision.decisions().get(i);
			if (!limit.allowed() && !limit.request().definition().algorithm().rate()) {
				if (announced == null) {
					announced = new ArrayList<>(decision.decisions());
				}
				announced.set(i, LimitDecision.denied(limit.request(), HINT_MS,
						new LimitDecision.Allowance(limit.remaining(), limit.resetAfterMs(), limit.moreAfterMs()))
					.at(limit.decidedAtMs()));
			}
		}
		return (announced != null) ? new RateLimitDecision(announced) : decision;
	}

}
