package dev.ratelimit.core;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimitDecision#room()} and {@link RateLimitDecision#aged}, what waiting callers read, and
 * {@link MaxWait}'s range. The decisions are written out, as a store would answer.
 */
class RateLimitDecisionTest {

	private static final LimitDefinition PER_SECOND = LimitDefinition.of("search", Algorithm.SLIDING_WINDOW_COUNTER, 10,
			Duration.ofSeconds(1));

	private static final LimitDefinition PER_HOUR = LimitDefinition.of("search-hourly", Algorithm.TOKEN_BUCKET, 1000,
			Duration.ofHours(1));

	private static final LimitDefinition SLOTS = LimitDefinition.of("slots", Algorithm.CONCURRENCY, 1,
			Duration.ofSeconds(30));

	@Test
	void roomCountsTheRequestsOfTheSameCostsThatFitInEveryLimit() {
		RateLimitDecision admitted = new RateLimitDecision(List.of(allowed(PER_SECOND.request(2), 5, 80),
				allowed(PER_HOUR.request(2), 7, 3_600)));
		assertThat(admitted.room()).isEqualTo(new RateLimitDecision.Room(2, 0));
	}

	@Test
	void withNoRoomTheWaitIsThatOfTheLimitsWithout() {
		// the hourly bucket has room for hundreds more; its next token (3.6 s) does not hold the next request back
		RateLimitDecision admitted = new RateLimitDecision(
				List.of(allowed(PER_SECOND.request(), 0, 100), allowed(PER_HOUR.request(), 900, 3_600)));
		assertThat(admitted.room()).isEqualTo(new RateLimitDecision.Room(0, 100));
		RateLimitDecision both = new RateLimitDecision(
				List.of(allowed(PER_SECOND.request(), 0, 100), allowed(PER_HOUR.request(), 0, 3_600)));
		assertThat(both.room()).isEqualTo(new RateLimitDecision.Room(0, 3_600));
	}

	@Test
	void shadowAndConcurrencyLimitsLeaveNoRoomToCount() {
		RateLimitDecision shadowed = new RateLimitDecision(List.of(allowed(PER_SECOND.request(), 3, 100),
				allowed(PER_HOUR.request().withShadow(true), 0, 3_600)));
		assertThat(shadowed.room()).isEqualTo(new RateLimitDecision.Room(3, 0));
		RateLimitDecision lease = new RateLimitDecision(
				List.of(allowed(SLOTS.request().withLease(LimitRequest.newLeaseId()), 0, 0)));
		assertThat(lease.room()).isEqualTo(new RateLimitDecision.Room(0, 0));
	}

	@Test
	void agedShortensEveryWaitButADenialsRetryAfterStaysAtLeastOneMs() {
		RateLimitDecision denied = new RateLimitDecision(
				List.of(LimitDecision.denied(PER_SECOND.request(), 300, new LimitDecision.Allowance(0, 900, 300)).at(42),
						allowed(PER_HOUR.request(), 5, 3_600)));
		RateLimitDecision aged = denied.aged(250);
		assertThat(aged.decisions().get(0).retryAfterMs()).hasValue(50);
		assertThat(aged.decisions().get(0).allowance()).isEqualTo(new LimitDecision.Allowance(0, 650, 50));
		assertThat(aged.decisions().get(0).decidedAtMs()).isEqualTo(42);
		assertThat(aged.decisions().get(1).allowance()).isEqualTo(new LimitDecision.Allowance(5, 3_350, 3_350));
		RateLimitDecision later = denied.aged(1_000);
		assertThat(later.retryAfterMs()).as("it was denied: never 0").hasValue(1);
		assertThat(later.decisions().get(0).allowance()).isEqualTo(new LimitDecision.Allowance(0, 0, 0));
		RateLimitDecision never = new RateLimitDecision(
				List.of(LimitDecision.never(PER_SECOND.request(11), new LimitDecision.Allowance(10, 0, 0))));
		assertThat(never.aged(5_000).never()).isTrue();
	}

	@Test
	void aMaxWaitBeyondTheMeasurableIsWaitedAsTheLongestThatIs() {
		for (Duration forever : List.of(ChronoUnit.FOREVER.getDuration(), Duration.ofSeconds(Long.MAX_VALUE),
				Duration.ofDays(365_000))) {
			assertThat(MaxWait.of(forever).remainingNanos()).as("%s", forever)
				.isGreaterThan(Duration.ofDays(365L * 70).toNanos());
		}
	}

	private static LimitDecision allowed(LimitRequest request, long remaining, long moreAfterMs) {
		return LimitDecision.allowed(request, new LimitDecision.Allowance(remaining, moreAfterMs, moreAfterMs));
	}

}
