package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The common rules of {@code docs/ALGORITHMS.md}, written once and run for every algorithm against every backend:
 * {@link RedisAlgorithmContractTest} (the Lua scripts on a real Redis) and {@link InMemoryAlgorithmContractTest}.
 * Where a rule is about stored state (a denied request consumes nothing, time going backwards moves nothing, every
 * state expires), the backend reads its state through the hooks below; everything else goes through
 * {@link RateLimiter} alone, with explicit time.
 */
abstract class AlgorithmContract {

	static final long T0 = 1_791_860_000_000L;

	RateLimiter limiter;

	/** A limiter with no state at all, for one test. */
	abstract RateLimiter newLimiter();

	/**
	 * The stored state of {@code limit} for {@code client}, as a value that {@link #assertSameState} compares;
	 * fails if there is none.
	 */
	abstract Object state(String client, LimitDefinition limit);

	/** Asserts that {@code after} is the state {@code before}, not consumed from, moved or kept alive longer. */
	abstract void assertSameState(Object before, Object after, String description);

	/** Asserts that the limiter holds no state at all (for any client or limit). */
	abstract void assertNothingStored();

	/**
	 * Rule 4 after a call at {@code now}: every state of {@code clients} for {@code limit} expires, at most
	 * {@code maxTtlMs} after {@code now}; and the state of {@code decided} exists when its request was admitted.
	 */
	abstract void assertEveryStateExpires(List<String> clients, String decided, boolean admitted,
			LimitDefinition limit, long now, long maxTtlMs, String description);

	@BeforeEach
	void newLimiterForTheTest() {
		this.limiter = newLimiter();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void deniedRequestConsumesNothing(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		exhaust("client", limit, T0 + 100);
		exhaust("twin", limit, T0 + 100);
		Object before = state("client", limit);

		for (long cost : new long[] { 1, 3, 5, 6 }) {
			RateLimitDecision denied = at(this.limiter, T0 + 100).tryAcquire("client", limit.request(cost));
			assertThat(denied.allowed()).as("cost %d", cost).isFalse();
		}

		assertSameState(before, state("client", limit), "after the denied requests");
		// The client that was denied decides from then on exactly as its twin, which sent none of them.
		long now = T0 + 100;
		for (int i = 0; i < 40; i++) {
			now += 53;
			LimitRequest request = limit.request(1 + i % 3);
			assertThat(at(this.limiter, now).tryAcquire("client", request).decisions())
				.as("request %d at T0 + %d", i, now - T0)
				.isEqualTo(at(this.limiter, now).tryAcquire("twin", request).decisions());
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void everyStateExpiresAfterEveryCall(Algorithm algorithm) {
		SplittableRandom random = new SplittableRandom(42);
		LimitDefinition limit = limit(algorithm, 4, 500);
		List<String> clients = List.of("client0", "client1", "client2");
		long now = T0;
		int admitted = 0;
		for (int i = 0; i < 300; i++) {
			now += random.nextInt(0, 120);
			String client = clients.get(random.nextInt(clients.size()));
			RateLimitDecision decision = at(this.limiter, now).tryAcquire(client, limit.request(random.nextInt(1, 4)));
			if (decision.allowed()) {
				admitted++;
			}
			// no state the algorithm writes needs more than two windows (the sliding window counter's previous
			// window) plus the scripts' 1 s margin
			assertEveryStateExpires(clients, client, decision.allowed(), limit, now, 2 * 500 + 1000, "call " + i);
		}
		assertThat(admitted).isBetween(30, 270);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void retryAfterIsTight(Algorithm algorithm) {
		SplittableRandom random = new SplittableRandom(7);
		LimitDefinition limit = limit(algorithm, 6, 1000);
		long now = T0;
		int checked = 0;
		for (int i = 0; i < 400; i++) {
			now += random.nextInt(0, 90);
			LimitRequest request = limit.request(random.nextInt(1, 4));
			RateLimitDecision decision = at(this.limiter, now).tryAcquire("client", request);
			if (!decision.allowed()) {
				long retryAfter = decision.retryAfterMs().orElseThrow();
				assertThat(retryAfter).isPositive();
				assertThat(at(this.limiter, now + retryAfter - 1).tryAcquire("client", request).allowed())
					.as("retry after %d - 1 ms at step %d", retryAfter, i)
					.isFalse();
				assertThat(at(this.limiter, now + retryAfter).tryAcquire("client", request).allowed())
					.as("retry after %d ms at step %d", retryAfter, i)
					.isTrue();
				now += retryAfter;
				checked++;
			}
		}
		assertThat(checked).isGreaterThan(20);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void requestsSharingOneMillisecondAreAllCounted(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		int admitted = 0;
		for (int i = 0; i < 25; i++) {
			if (at(this.limiter, T0 + 500).tryAcquire("client", limit).allowed()) {
				admitted++;
			}
		}
		assertThat(admitted).isEqualTo(10);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void costAboveOneTakesThatManyUnits(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		for (int i = 0; i < 3; i++) {
			RateLimitDecision decision = at(this.limiter, T0).tryAcquire("client", limit.request(3));
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(10 - 3 * (i + 1));
		}
		assertThat(at(this.limiter, T0).tryAcquire("client", limit.request(3)).allowed()).isFalse();
		RateLimitDecision last = at(this.limiter, T0).tryAcquire("client", limit);
		assertThat(last.allowed()).isTrue();
		assertThat(last.remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void costAboveTheLimitIsNeverAdmittedAndConsumesNothing(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		assertThatIllegalArgumentException().isThrownBy(() -> limit.request(11).requireCostFits())
			.withMessageContaining("cost 11")
			.withMessageContaining("never");

		RateLimitDecision decision = at(this.limiter, T0).tryAcquire("client", limit.request(11));

		assertThat(decision.allowed()).isFalse();
		assertThat(decision.never()).isTrue();
		assertThat(decision.retryAfterMs()).isEmpty();
		assertThat(decision.remaining()).isEqualTo(10);
		assertNothingStored();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void timeGoingBackwardsNeitherRefillsNorMovesStoredTime(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		long late = T0 + 10_500;
		exhaust("client", limit, late);
		Object state = state("client", limit);

		for (long earlier : new long[] { late - 1, late - 600, late - 5_000, T0 }) {
			RateLimitDecision decision = at(this.limiter, earlier).tryAcquire("client", limit);
			assertThat(decision.allowed()).as("request at %d ms before the last", late - earlier).isFalse();
			assertThat(decision.retryAfterMs().orElseThrow()).isPositive();
		}
		assertSameState(state, state("client", limit), "after the requests at earlier times");
		// The limiter carries on from the latest time it saw.
		long retryAfter = at(this.limiter, late).tryAcquire("client", limit).retryAfterMs().orElseThrow();
		assertThat(at(this.limiter, late + retryAfter - 1).tryAcquire("client", limit).allowed()).isFalse();
		assertThat(at(this.limiter, late + retryAfter).tryAcquire("client", limit).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void limitsWithDifferentNamesDoNotShareState(Algorithm algorithm) {
		LimitDefinition first = LimitDefinition.of("first", algorithm, 3, Duration.ofSeconds(1));
		LimitDefinition second = LimitDefinition.of("second", algorithm, 3, Duration.ofSeconds(1));
		exhaust("client", first, T0);
		RateLimitDecision decision = at(this.limiter, T0).tryAcquire("client", second);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(2);
		assertThat(at(this.limiter, T0).tryAcquire("other-client", first).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void severalLimitsOnOneRequestAreAllOrNothing(Algorithm algorithm) {
		LimitDefinition perSecond = LimitDefinition.of("per-second", algorithm, 2, Duration.ofSeconds(1));
		LimitDefinition perHour = LimitDefinition.of("per-hour", Algorithm.SLIDING_LOG, 10, Duration.ofHours(1));
		List<LimitRequest> both = List.of(perSecond.request(), perHour.request());
		assertThat(at(this.limiter, T0).tryAcquire("client", both).allowed()).isTrue();
		assertThat(at(this.limiter, T0).tryAcquire("client", both).allowed()).isTrue();
		Object perHourBefore = state("client", perHour);

		RateLimitDecision denied = at(this.limiter, T0).tryAcquire("client", both);

		assertThat(denied.allowed()).isFalse();
		assertThat(denied.violated()).extracting((d) -> d.request().name()).containsExactly("per-second");
		assertThat(denied.decisions().get(1).allowed()).isTrue();
		assertThat(denied.decisions().get(1).remaining()).isEqualTo(8);
		// The per-hour limit took nothing from the denied request.
		assertSameState(perHourBefore, state("client", perHour), "per-hour after the denied request");
		assertThat(at(this.limiter, T0).tryAcquire("client", perHour).remaining()).isEqualTo(7);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void severalLimitsDeniedByTheOtherLimitLeaveThisOneUntouched(Algorithm algorithm) {
		LimitDefinition tight = LimitDefinition.of("tight", Algorithm.FIXED_WINDOW, 1, Duration.ofHours(1));
		LimitDefinition limit = limit(algorithm, 5, 1000);
		assertThat(at(this.limiter, T0).tryAcquire("client", List.of(limit.request(), tight.request())).allowed()).isTrue();
		Object before = state("client", limit);
		for (int i = 1; i <= 20; i++) {
			RateLimitDecision denied = at(this.limiter, T0 + 37 * i).tryAcquire("client", List.of(limit.request(), tight.request()));
			assertThat(denied.allowed()).isFalse();
			assertThat(denied.violated()).extracting((d) -> d.request().name()).containsExactly("tight");
		}
		assertSameState(before, state("client", limit), "after 20 requests denied by the other limit");
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void aShadowLimitDeniesWithoutBlockingAndConsumesOnlyWhenItAdmits(Algorithm algorithm) {
		LimitDefinition shadowShape = LimitDefinition.of("shadow", algorithm, 2, Duration.ofHours(1));
		LimitRequest shadow = shadowShape.request().withShadow(true);
		LimitDefinition enforced = LimitDefinition.of("enforced", Algorithm.FIXED_WINDOW, 5, Duration.ofHours(1));
		List<LimitRequest> both = List.of(shadow, enforced.request());
		for (int i = 1; i <= 5; i++) {
			RateLimitDecision decision = at(this.limiter, T0 + i).tryAcquire("client", both);
			assertThat(decision.allowed()).as("request %d", i).isTrue();
			assertThat(decision.decisions().get(0).allowed()).as("shadow's own verdict, request %d", i).isEqualTo(i <= 2);
			assertThat(decision.shadowDenied()).hasSize((i <= 2) ? 0 : 1);
			assertThat(decision.violated()).isEmpty();
			// The summary is the enforced limit's.
			assertThat(decision.remaining()).isEqualTo(5 - i);
		}
		// The enforced limit consumed on every request, the shadow limit on the two it admitted: exactly as enforced.
		assertThat(at(this.limiter, T0 + 10).tryAcquire("client", enforced).allowed()).isFalse();
		Object shadowBefore = state("client", shadowShape);
		RateLimitDecision denied = at(this.limiter, T0 + 11).tryAcquire("client", both);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.violated()).extracting((d) -> d.request().name()).containsExactly("enforced");
		assertSameState(shadowBefore, state("client", shadowShape), "shadow after a request the enforced limit denied");
		// Enforced now, the same limit reads the same state: two admitted, none left.
		assertThat(at(this.limiter, T0 + 12).tryAcquire("client", shadow.withShadow(false)).allowed()).isFalse();
		assertThat(at(this.limiter, T0 + 12).tryAcquire("fresh", shadow.withShadow(false)).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void aShadowLimitConsumesNothingWhenAnEnforcedLimitDenies(Algorithm algorithm) {
		LimitDefinition shadowShape = limit(algorithm, 5, 1000);
		LimitRequest shadow = shadowShape.request().withShadow(true);
		LimitDefinition tight = LimitDefinition.of("tight", Algorithm.FIXED_WINDOW, 1, Duration.ofHours(1));
		assertThat(at(this.limiter, T0).tryAcquire("client", List.of(shadow, tight.request())).allowed()).isTrue();
		Object before = state("client", shadowShape);
		for (int i = 1; i <= 10; i++) {
			RateLimitDecision denied = at(this.limiter, T0 + 37 * i).tryAcquire("client", List.of(shadow, tight.request()));
			assertThat(denied.allowed()).isFalse();
			assertThat(denied.decisions().get(0).allowed()).isTrue();
		}
		assertSameState(before, state("client", shadowShape), "after 10 requests denied by the enforced limit");
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void aRequestWithShadowLimitsOnlyIsAlwaysAdmitted(Algorithm algorithm) {
		LimitRequest shadow = limit(algorithm, 3, 1000).request().withShadow(true);
		for (int i = 1; i <= 6; i++) {
			RateLimitDecision decision = at(this.limiter, T0 + i).tryAcquire("client", shadow);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.retryAfterMs()).hasValue(0);
			assertThat(decision.shadowDenied()).hasSize((i <= 3) ? 0 : 1);
			assertThat(decision.remaining()).isEqualTo(Math.max(0, 3 - i));
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void peekShowsWhatTheNextRequestWouldGetAndConsumesNothing(Algorithm algorithm) {
		SplittableRandom random = new SplittableRandom(11);
		LimitDefinition limit = limit(algorithm, 6, 1000);
		long now = T0;
		int allowed = 0;
		int denied = 0;
		for (int i = 0; i < 300; i++) {
			now += random.nextInt(0, 120);
			LimitRequest request = limit.request(random.nextInt(1, 4));
			LimitDecision peeked = at(this.limiter, now).peek("peeked", request);
			assertThat(at(this.limiter, now).peek("peeked", request)).as("second peek at step %d", i).isEqualTo(peeked);
			LimitDecision decided = at(this.limiter, now).tryAcquire("peeked", request).decisions().get(0);
			// the twin gets the same requests and is never peeked at: the peeks consumed nothing
			assertThat(at(this.limiter, now).tryAcquire("twin", request).decisions().get(0)).as("twin at step %d", i)
				.isEqualTo(decided);
			assertThat(peeked.allowed()).as("allowed at step %d", i).isEqualTo(decided.allowed());
			assertThat(peeked.retryAfterMs()).as("retry-after at step %d", i).isEqualTo(decided.retryAfterMs());
			if (decided.allowed()) {
				assertThat(peeked.remaining()).as("remaining at step %d", i)
					.isEqualTo(decided.remaining() + request.cost());
				allowed++;
			}
			else {
				// a denied request reports the state as it stands, which is what a peek reports
				assertThat(peeked).as("peek before the denied request at step %d", i).isEqualTo(decided);
				denied++;
			}
		}
		assertThat(allowed).isGreaterThan(30);
		assertThat(denied).isGreaterThan(30);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void aWholeRefundLeavesTheClientDecidingAsIfItNeverReserved(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		at(this.limiter, T0 + 100).tryAcquire("client", limit.request(2));
		at(this.limiter, T0 + 100).tryAcquire("twin", limit.request(2));
		LimitDecision reservation = at(this.limiter, T0 + 200).tryAcquire("client", limit.request(3)).decisions().get(0);
		assertThat(reservation.allowed()).isTrue();
		assertThat(reservation.decidedAtMs()).isEqualTo(T0 + 200);

		LimitDecision settled = at(this.limiter, T0 + 250).settle("client", List.of(Settlement.of(reservation, 0)))
			.decisions()
			.get(0);

		assertThat(settled.remaining()).isEqualTo(3);
		long now = T0 + 250;
		for (int i = 0; i < 30; i++) {
			now += 61;
			LimitRequest request = limit.request(1 + i % 2);
			assertThat(at(this.limiter, now).tryAcquire("client", request).decisions())
				.as("request %d at T0 + %d", i, now - T0)
				.isEqualTo(at(this.limiter, now).tryAcquire("twin", request).decisions());
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void aChargeBeyondTheLimitGoesIntoDebtThatTheNextRequestsWaitOut(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 4, 1000);
		LimitDecision reservation = at(this.limiter, T0 + 100).tryAcquire("client", limit.request(1)).decisions().get(0);

		LimitDecision settled = at(this.limiter, T0 + 100).settle("client", List.of(Settlement.of(reservation, 9)))
			.decisions()
			.get(0);

		// the call has run: never denied, nothing left
		assertThat(settled.allowed()).isTrue();
		assertThat(settled.remaining()).isZero();
		// rule 4: the state in debt expires, at the latest once the bucket is full again (9 tokens at 4 per second)
		assertEveryStateExpires(List.of("client"), "client", true, limit, T0 + 100, 2250 + 1000, "after the debt");
		RateLimitDecision next = at(this.limiter, T0 + 100).tryAcquire("client", limit.request());
		assertThat(next.allowed()).isFalse();
		long retryAfter = next.retryAfterMs().orElseThrow();
		assertThat(at(this.limiter, T0 + 100 + retryAfter - 1).tryAcquire("client", limit.request()).allowed())
			.isFalse();
		assertThat(at(this.limiter, T0 + 100 + retryAfter).tryAcquire("client", limit.request()).allowed()).isTrue();
		if (algorithm == Algorithm.TOKEN_BUCKET) {
			// 9 taken of 4: 5 tokens of debt, and one more to admit, at 4 per second
			assertThat(retryAfter).isEqualTo(1500);
		}
		else {
			// the debt is counted in the current window (and, for the log, at the charge's time): until it ends
			assertThat(retryAfter).isGreaterThanOrEqualTo(900);
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void aRefundGivesNothingBackOnceTheReservedUnitsNoLongerCount(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 3, 1000);
		LimitDecision reservation = at(this.limiter, T0 + 100).tryAcquire("client", limit.request(3)).decisions().get(0);
		// two windows later the reserved units count nowhere (the token bucket has refilled to its capacity)
		LimitDecision settled = at(this.limiter, T0 + 2100).settle("client", List.of(Settlement.of(reservation, 0)))
			.decisions()
			.get(0);

		assertThat(settled.remaining()).isEqualTo(3);
		assertThat(at(this.limiter, T0 + 2100).tryAcquire("client", limit.request(3)).allowed()).isTrue();
		// no unit given back beyond the limit: the next one is denied
		assertThat(at(this.limiter, T0 + 2100).tryAcquire("client", limit.request()).allowed()).isFalse();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void aCostBeyondTheExactRangeIsChargedAsTheLargestDebtNotDropped(Algorithm algorithm) {
		LimitDefinition limit = LimitDefinition.of("limit", algorithm, 4, Duration.ofDays(1));
		LimitDecision reservation = at(this.limiter, T0).tryAcquire("client", limit.request(1)).decisions().get(0);

		at(this.limiter, T0).settle("client", List.of(Settlement.of(reservation, Long.MAX_VALUE / 2)));

		RateLimitDecision next = at(this.limiter, T0 + 1000).tryAcquire("client", limit.request());
		assertThat(next.allowed()).isFalse();
		// in debt at least until the window in which it was charged ends, 20.9 h after T0 (a token bucket for years)
		assertThat(next.retryAfterMs().orElseThrow()).isGreaterThanOrEqualTo(Duration.ofHours(20).toMillis());
	}

	@Test
	void aSettlementOfAnUnknownTimeOrANegativeCostIsRefused() {
		LimitDefinition limit = limit(Algorithm.TOKEN_BUCKET, 3, 1000);
		LimitDecision unknownTime = LimitDecision.allowed(limit.request(), new LimitDecision.Allowance(2, 0, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> Settlement.of(unknownTime, 0))
			.withMessageContaining("time is unknown");
		assertThatIllegalArgumentException().isThrownBy(() -> Settlement.of(unknownTime.at(T0), -1))
			.withMessageContaining("at least 0");
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void peekWritesNothing(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		assertThat(at(this.limiter, T0).peek("client", limit.request(2)))
			.isEqualTo(LimitDecision.allowed(limit.request(2), new LimitDecision.Allowance(5, 0, 0)).at(T0));
		assertThat(at(this.limiter, T0).peek("client", limit.request(6)).never()).isTrue();
		assertNothingStored();

		exhaust("client", limit, T0 + 100);
		Object before = state("client", limit);
		for (long at : new long[] { T0 + 100, T0 + 150, T0 + 199 }) {
			LimitDecision peeked = at(this.limiter, at).peek("client", limit.request());
			assertThat(peeked.allowed()).as("at T0 + %d", at - T0).isFalse();
			assertThat(peeked.remaining()).as("at T0 + %d", at - T0).isZero();
		}
		assertSameState(before, state("client", limit), "after the peeks");
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void resetGivesOneClientItsFullAllowanceAndLeavesEverythingElse(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 3, 1000);
		// the same name in another shape (as another plan gives it): a state of its own
		LimitDefinition otherShape = limit(algorithm, 3, 2000);
		LimitDefinition other = LimitDefinition.of("other", algorithm, 3, Duration.ofSeconds(1));
		exhaust("client", limit, T0);
		exhaust("client", otherShape, T0);
		exhaust("client", other, T0);
		exhaust("neighbour", limit, T0);
		Object otherBefore = state("client", other);
		Object neighbourBefore = state("neighbour", limit);

		assertThat(this.limiter.reset("client", List.of(limit, limit, otherShape))).isEqualTo(2);

		assertThat(at(this.limiter, T0).peek("client", limit.request()))
			.isEqualTo(LimitDecision.allowed(limit.request(), new LimitDecision.Allowance(3, 0, 0)).at(T0));
		exhaust("client", limit, T0);
		exhaust("client", otherShape, T0);
		assertSameState(otherBefore, state("client", other), "the client's other limit after the reset");
		assertSameState(neighbourBefore, state("neighbour", limit), "another client after the reset");
		assertThat(this.limiter.reset("nobody", List.of(limit))).isZero();
		assertThat(this.limiter.reset("client", List.of(LimitDefinition.of("unused", algorithm, 3, Duration.ofSeconds(1)))))
			.isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void resetAllGivesEveryClientItsFullAllowanceAtOnce(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 3, 1000);
		LimitDefinition other = LimitDefinition.of("other", Algorithm.TOKEN_BUCKET, 3, Duration.ofSeconds(1));
		exhaust("client", limit, T0);
		exhaust("client", other, T0);
		exhaust("neighbour", limit, T0);

		assertThat(this.limiter.resetAll()).isEqualTo(3);

		for (String client : List.of("client", "neighbour")) {
			assertThat(at(this.limiter, T0).peek(client, limit.request()).remaining()).as(client).isEqualTo(3);
		}
		assertThat(at(this.limiter, T0).peek("client", other.request()).remaining()).isEqualTo(3);
		exhaust("client", limit, T0);
		assertThat(this.limiter.resetAll()).isEqualTo(1);
		assertThat(this.limiter.resetAll()).isZero();
		assertNothingStored();
	}

	@Test
	void inputErrorsAreRejectedBeforeAnythingIsDecided() {
		LimitDefinition limit = limit(Algorithm.TOKEN_BUCKET, 3, 1000);
		LimitDefinition sameName = LimitDefinition.of("limit", Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(2));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire("client", List.of()));
		assertThatIllegalArgumentException().isThrownBy(() -> at(this.limiter, T0).tryAcquire("client", List.of()));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.limiter.tryAcquire("client", List.of(limit.request(), sameName.request())))
			.withMessageContaining("'limit'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> at(this.limiter, T0).tryAcquire("client", List.of(limit.request(), sameName.request())));
		for (long outOfRange : new long[] { -1, Long.MIN_VALUE, 1L << 52, Long.MAX_VALUE }) {
			assertThatIllegalArgumentException().as("clock at %d", outOfRange)
				.isThrownBy(() -> at(this.limiter, outOfRange).tryAcquire("client", limit))
				.withMessageContaining("below 2^52");
		}
		assertThatNullPointerException().isThrownBy(() -> at(this.limiter, T0).tryAcquire(null, limit));
		for (long outOfRange : new long[] { -1, 1L << 52 }) {
			assertThatIllegalArgumentException().as("peek with the clock at %d", outOfRange)
				.isThrownBy(() -> at(this.limiter, outOfRange).peek("client", limit.request()))
				.withMessageContaining("below 2^52");
		}
		assertThatNullPointerException().isThrownBy(() -> at(this.limiter, T0).peek(null, limit.request()));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.reset("client", List.of()));
		assertThatNullPointerException().isThrownBy(() -> this.limiter.reset(null, List.of(limit)));
		assertNothingStored();
		// the ends of the range are times like any other
		assertThat(at(this.limiter, 0).tryAcquire("client", limit).remaining()).isEqualTo(2);
		assertThat(at(this.limiter, (1L << 52) - 1).tryAcquire("late-client", limit).remaining()).isEqualTo(2);
	}

	/**
	 * A limit changed at runtime keeps its key when its algorithm and window stay: its state stands, and the new
	 * limit applies from the next decision (docs/ALGORITHMS.md, "Changing a limit").
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "CONCURRENCY" }, mode = EnumSource.Mode.EXCLUDE)
	void aLowerLimitAppliesToTheStateAsItStands(Algorithm algorithm) {
		LimitDefinition five = limit(algorithm, 5, 60_000);
		for (int i = 0; i < 3; i++) {
			assertThat(at(this.limiter, T0 + 100).tryAcquire("client", five).allowed()).isTrue();
		}
		LimitDefinition four = limit(algorithm, 4, 60_000);
		assertThat(at(this.limiter, T0 + 200).tryAcquire("client", four).allowed()).isTrue();
		assertThat(at(this.limiter, T0 + 200).tryAcquire("client", four).allowed()).isFalse();
		LimitDefinition two = limit(algorithm, 2, 60_000);
		assertThat(at(this.limiter, T0 + 300).tryAcquire("client", two).allowed()).as("4 spent of 2").isFalse();
	}

	/**
	 * A token bucket whose refill is lowered and capacity raised keeps its tokens: they refill at the new rate up to
	 * the new capacity, from the next decision.
	 */
	@Test
	void aTokenBucketWithALowerRefillAndAHigherCapacityKeepsItsTokens() {
		LimitDefinition before = new LimitDefinition("limit", Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1), 10);
		exhaust("client", before, T0);
		// 1 token per second from now on, up to 100
		LimitDefinition after = new LimitDefinition("limit", Algorithm.TOKEN_BUCKET, 1, Duration.ofSeconds(1), 100);
		RateLimitDecision half = at(this.limiter, T0 + 500).tryAcquire("client", after);
		assertThat(half.allowed()).as("half a token").isFalse();
		assertThat(half.decisions().get(0).retryAfterMs()).hasValue(500L);
		assertThat(half.decisions().get(0).remaining()).isZero();
		assertThat(at(this.limiter, T0 + 1000).tryAcquire("client", after).allowed()).isTrue();
		assertThat(at(this.limiter, T0 + 1000).tryAcquire("client", after).allowed()).as("the one token spent").isFalse();
		// under the old shape the bucket would be full again by now, with 10
		RateLimitDecision later = at(this.limiter, T0 + 3000).tryAcquire("client", after);
		assertThat(later.allowed()).isTrue();
		assertThat(later.decisions().get(0).remaining()).isEqualTo(1);
	}

	static LimitDefinition limit(Algorithm algorithm, long limit, long windowMs) {
		return LimitDefinition.of("limit", algorithm, limit, Duration.ofMillis(windowMs));
	}

	void exhaust(String client, LimitDefinition limit, long now) {
		int admitted = 0;
		while (at(this.limiter, now).tryAcquire(client, limit).allowed()) {
			admitted++;
		}
		assertThat(admitted).isEqualTo(limit.limit());
	}

}
