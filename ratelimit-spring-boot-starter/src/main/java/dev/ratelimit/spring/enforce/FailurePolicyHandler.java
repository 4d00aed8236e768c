package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.jspecify.annotations.Nullable;

/**
 * The one place where the failure policies are told apart: what becomes of limits that Redis did not decide, because
 * it failed, its deadline passed, or the fail-local breaker spares it the call ({@link LocalFallback}).
 * <ul>
 * <li>{@code fail-closed}: the request is refused with a 503, before a call only, and never by a shadow limit;</li>
 * <li>{@code fail-local}: this instance decides the limit alone, on its share of it;</li>
 * <li>{@code fail-open}: the limit is skipped.</li>
 * </ul>
 */
final class FailurePolicyHandler {

	/** When Redis did not decide. */
	enum Moment {

		/** A request's or call's decision before it runs: the limits consume. */
		DECISION,

		/** The admission of a call charged by outcome: the limits are read without consuming. */
		ADMISSION,

		/** The charge after a call charged by outcome: the call has run, so nothing refuses it or counts as open. */
		CHARGE;

		boolean beforeTheCall() {
			return this != CHARGE;
		}

	}

	private final LocalFallback fallback;

	private final RateLimitEventRecorder events;

	private final RateLimitResponder responses;

	FailurePolicyHandler(LocalFallback fallback, RateLimitEventRecorder events, RateLimitResponder responses) {
		this.fallback = fallback;
		this.events = events;
		this.responses = responses;
	}

	/**
	 * The limits of one client key that Redis did not decide, as their policies say.
	 * @return the decision of the fail-local limits on this instance (at {@link Moment#ADMISSION}, their states read
	 * without consuming), or {@code null} when none is fail-local; its concurrency limits take {@code lease}
	 * @throws dev.ratelimit.spring.RateLimitException the 503 when a fail-closed limit that is not in shadow mode is
	 * among them before the call
	 */
	@Nullable RateLimitDecision apply(LimitedRequest request, String clientKey, List<ConfiguredLimit> limits,
			Moment moment, @Nullable String lease) {
		if (moment.beforeTheCall()) {
			// A shadow limit never refuses a request, not even when Redis fails.
			if (limits.stream()
				.anyMatch((limit) -> limit.failurePolicy() == FailurePolicy.FAIL_CLOSED && !limit.shadow())) {
				this.events.failedClosed(limits);
				throw this.responses.unavailable(request);
			}
			List<ConfiguredLimit> skipped = limits.stream().filter((limit) -> limit.localShare() == null).toList();
			if (!skipped.isEmpty()) {
				this.events.failedOpen(skipped);
			}
		}
		if (moment == Moment.ADMISSION) {
			return peek(clientKey, limits);
		}
		RateLimitDecision local = this.fallback.decide(clientKey, limits, lease);
		if (local != null) {
			this.events.decidedLocally(local);
		}
		return local;
	}

	private @Nullable RateLimitDecision peek(String clientKey, List<ConfiguredLimit> limits) {
		List<LimitDecision> states = new ArrayList<>();
		for (ConfiguredLimit limit : limits) {
			LimitDecision state = this.fallback.peek(clientKey, limit);
			if (state != null) {
				states.add(state);
			}
		}
		return states.isEmpty() ? null : new RateLimitDecision(states);
	}

}
