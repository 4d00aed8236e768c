package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * The decision for one request against all the limits applied to it, decided together and all or nothing: the
 * request is admitted (and consumes from every limit) only if every limit allows it.
 *
 * <p>
 * The summary methods report the most restrictive limit, as {@code docs/ALGORITHMS.md} prescribes: when denied,
 * the denying limit with the largest retry-after (one that can never admit the request above all); when allowed, the
 * limit with the fewest remaining units. Shadow limits ({@link LimitRequest#shadow()}) are decided in the same call
 * but outside the all or nothing: {@link #allowed()}, {@link #violated()}, {@link #mostRestrictive()},
 * {@link #remaining()}, {@link #retryAfterMs()} and {@link #never()} consider the enforced limits only, or every
 * limit when all are shadow (the request is then admitted). {@link #shadowDenied()} lists the shadow limits that
 * denied.
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

	/** The decisions the summary considers: the enforced ones, or all when every limit is shadow. */
	private List<LimitDecision> governing() {
		List<LimitDecision> enforced = this.decisions.stream().filter((decision) -> !decision.request().shadow()).toList();
		return enforced.isEmpty() ? this.decisions : enforced;
	}

	/** Whether the request was admitted: every enforced (non-shadow) limit allowed it; true when all are shadow. */
	public boolean allowed() {
		// a loop, not a stream: read several times for every request
		for (LimitDecision decision : this.decisions) {
			if (!decision.request().shadow() && !decision.allowed()) {
				return false;
			}
		}
		return true;
	}

	/** The decision that governs the answer, among the enforced limits (all when every limit is shadow). */
	public LimitDecision mostRestrictive() {
		List<LimitDecision> governing = governing();
		if (allowed()) {
			return governing.stream().min(Comparator.comparingLong(LimitDecision::remaining)).orElseThrow();
		}
		return governing.stream()
			.filter((decision) -> !decision.allowed())
			.max(Comparator.comparingLong((LimitDecision decision) -> decision.retryAfterMs().orElse(Long.MAX_VALUE)))
			.orElseThrow();
	}

	/** The enforced limits that denied the request; empty when allowed. */
	public List<LimitDecision> violated() {
		return this.decisions.stream().filter((decision) -> !decision.request().shadow() && !decision.allowed()).toList();
	}

	/** The shadow limits that denied the request (and blocked nothing). */
	public List<LimitDecision> shadowDenied() {
		// read for every request, and nearly always empty: no stream for nothing
		for (LimitDecision decision : this.decisions) {
			if (decision.request().shadow() && !decision.allowed()) {
				return this.decisions.stream()
					.filter((denied) -> denied.request().shadow() && !denied.allowed())
					.toList();
			}
		}
		return List.of();
	}

	/** Remaining cost-1 requests of the most restrictive enforced limit (all when every limit is shadow). */
	public long remaining() {
		return governing().stream().mapToLong(LimitDecision::remaining).min().orElseThrow();
	}

	/**
	 * 0 when allowed; otherwise ms until the request could be admitted, by the most restrictive enforced limit;
	 * empty when it can never be admitted ({@link #never()}).
	 */
	public OptionalLong retryAfterMs() {
		return allowed() ? OptionalLong.of(0) : mostRestrictive().retryAfterMs();
	}

	/** Whether the request can never be admitted, however long it waits (by its enforced limits). */
	public boolean never() {
		return !allowed() && mostRestrictive().never();
	}

	/**
	 * What this decision leaves of its enforced rate limits (not shadow limits, not concurrency limits) for more
	 * requests of the same costs: how many fit at once, and, when none does, the wait until one more unit fits in
	 * every limit that has no room (the largest more-after among those; a limit with room does not hold the next
	 * request back; exact for a cost of 1, a first try for more). Read by callers that wait for a permit in line
	 * ({@link RateLimiter#acquire}, the Spring starter's waits), so that an admitted caller lets as many callers behind
	 * it ask at once as can be admitted, or the next one ask when one can.
	 * @return {@code Room(0, 0)} when no enforced rate limit is among the decisions
	 */
	public Room room() {
		long count = Long.MAX_VALUE;
		long afterMs = 0;
		for (LimitDecision limit : this.decisions) {
			LimitRequest request = limit.request();
			if (request.definition().algorithm().rate() && !request.shadow()) {
				long fits = Math.max(0, limit.remaining()) / Math.max(1, request.cost());
				count = Math.min(count, fits);
				if (fits == 0) {
					afterMs = Math.max(afterMs, limit.moreAfterMs());
				}
			}
		}
		if (count == Long.MAX_VALUE) {
			return new Room(0, 0);
		}
		return new Room(count, (count > 0) ? 0 : afterMs);
	}

	/**
	 * This decision {@code elapsedMs} later with no other traffic: every wait shorter by that much, never below 0, and
	 * a denial's retry-after never below 1 ms (it was denied; a request that can never be admitted stays so). What a
	 * caller that did not ask is answered with, from a denial another caller had shortly before (the Spring starter's
	 * remembered denials, the lines of callers waiting for a permit).
	 * @param elapsedMs the time since this decision, in ms, at least 0
	 */
	public RateLimitDecision aged(long elapsedMs) {
		List<LimitDecision> aged = new ArrayList<>(this.decisions.size());
		for (LimitDecision limit : this.decisions) {
			LimitDecision.Allowance allowance = new LimitDecision.Allowance(limit.remaining(),
					Math.max(0, limit.resetAfterMs() - elapsedMs), Math.max(0, limit.moreAfterMs() - elapsedMs));
			OptionalLong retryAfterMs = limit.retryAfterMs();
			if (!limit.allowed() && retryAfterMs.isPresent()) {
				retryAfterMs = OptionalLong.of(Math.max(1, retryAfterMs.getAsLong() - elapsedMs));
			}
			aged.add(new LimitDecision(limit.request(), limit.allowed(), retryAfterMs, allowance, limit.decidedAtMs()));
		}
		return new RateLimitDecision(aged);
	}

	/**
	 * This decision with every denying limit's retry-after at least {@code retryAfterMs}: what a caller that did not ask
	 * is told when it knows that nothing fits sooner (a line of waiting callers asks next only then), which a denial
	 * aged since another caller had it may not say. A limit that allowed, or that can never admit the request, is
	 * unchanged.
	 * @param retryAfterMs the least retry-after, ms
	 */
	public RateLimitDecision withRetryAfterAtLeast(long retryAfterMs) {
		List<LimitDecision> raised = new ArrayList<>(this.decisions.size());
		for (LimitDecision limit : this.decisions) {
			OptionalLong retry = limit.retryAfterMs();
			if (!limit.allowed() && retry.isPresent() && retry.getAsLong() < retryAfterMs) {
				limit = new LimitDecision(limit.request(), false, OptionalLong.of(retryAfterMs), limit.allowance(),
						limit.decidedAtMs());
			}
			raised.add(limit);
		}
		return new RateLimitDecision(raised);
	}

	/**
	 * Room for more requests of the same costs ({@link #room()}).
	 * @param count how many more fit at once, at least 0
	 * @param afterMs when none fits, ms until one more unit fits (0 when some fit)
	 */
	public record Room(long count, long afterMs) {
	}

}
