package dev.ratelimit.core;

import java.util.Comparator;
import java.util.List;

/**
 * The decision for one request against all the limits applied to it, decided together and all or nothing: the
 * request is admitted (and consumes from every limit) only if every limit allows it.
 *
 * <p>
 * The summary methods report the most restrictive limit, as {@code docs/ALGORITHMS.md} prescribes: when denied,
 * the denying limit with the largest retry-after ({@link LimitDecision#NEVER} above all); when allowed, the limit
 * with the fewest remaining units.
 *
 * @param decisions one decision per limit, in the order the limits were given; not empty
 */
public record RateLimitDecision(List<LimitDecision> decisions) {

	public RateLimitDecision {
		if (decisions.isEmpty()) {
			throw new IllegalArgumentException("decisions must not be empty");
		}
		decisions = List.copyOf(decisions);
	}

	/** Whether the request was admitted by every limit. */
	public boolean allowed() {
		return this.decisions.stream().allMatch(LimitDecision::allowed);
	}

	/** The decision that governs the answer: see the class description. */
	public LimitDecision mostRestrictive() {
		if (allowed()) {
			return this.decisions.stream().min(Comparator.comparingLong(LimitDecision::remaining)).orElseThrow();
		}
		return this.decisions.stream()
			.filter((decision) -> !decision.allowed())
			.max(Comparator.comparingLong((LimitDecision decision) -> decision.never() ? Long.MAX_VALUE : decision.retryAfterMs()))
			.orElseThrow();
	}

	/** The limits that denied the request; empty when allowed. */
	public List<LimitDecision> violated() {
		return this.decisions.stream().filter((decision) -> !decision.allowed()).toList();
	}

	/** Remaining cost-1 requests of the most restrictive limit; never negative. */
	public long remaining() {
		return this.decisions.stream().mapToLong(LimitDecision::remaining).min().orElseThrow();
	}

	/** 0 when allowed; otherwise ms until the request could be admitted, or {@link LimitDecision#NEVER}. */
	public long retryAfterMs() {
		return allowed() ? 0 : mostRestrictive().retryAfterMs();
	}

	/** Whether the request can never be admitted, however long it waits. */
	public boolean never() {
		return !allowed() && mostRestrictive().never();
	}

}
