package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
	@EnumSource(Algorithm.class)
	void deniedRequestConsumesNothing(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		exhaust("client", limit, T0 + 100);
		exhaust("twin", limit, T0 + 100);
		Object before = state("client", limit);

		for (long cost : new long[] { 1, 3, 5, 6 }) {
			RateLimitDecision denied = this.limiter.tryAcquire("client", limit.withCost(cost), T0 + 100);
			assertThat(denied.allowed()).as("cost %d", cost).isFalse();
		}

		assertSameState(before, state("client", limit), "after the denied requests");
		// The client that was denied decides from then on exactly as its twin, which sent none of them.
		long now = T0 + 100;
		for (int i = 0; i < 40; i++) {
			now += 53;
			LimitDefinition request = limit.withCost(1 + i % 3);
			assertThat(this.limiter.tryAcquire("client", request, now).decisions())
				.as("request %d at T0 + %d", i, now - T0)
				.isEqualTo(this.limiter.tryAcquire("twin", request, now).decisions());
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void everyStateExpiresAfterEveryCall(Algorithm algorithm) {
		SplittableRandom random = new SplittableRandom(42);
		LimitDefinition limit = limit(algorithm, 4, 500);
		List<String> clients = List.of("client0", "client1", "client2");
		long now = T0;
		int admitted = 0;
		for (int i = 0; i < 300; i++) {
			now += random.nextInt(0, 120);
			String client = clients.get(random.nextInt(clients.size()));
			RateLimitDecision decision = this.limiter.tryAcquire(client, limit.withCost(random.nextInt(1, 4)), now);
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
	@EnumSource(Algorithm.class)
	void retryAfterIsTight(Algorithm algorithm) {
		SplittableRandom random = new SplittableRandom(7);
		LimitDefinition limit = limit(algorithm, 6, 1000);
		long now = T0;
		int checked = 0;
		for (int i = 0; i < 400; i++) {
			now += random.nextInt(0, 90);
			LimitDefinition request = limit.withCost(random.nextInt(1, 4));
			RateLimitDecision decision = this.limiter.tryAcquire("client", request, now);
			if (!decision.allowed()) {
				long retryAfter = decision.retryAfterMs();
				assertThat(retryAfter).isPositive();
				assertThat(this.limiter.tryAcquire("client", request, now + retryAfter - 1).allowed())
					.as("retry after %d - 1 ms at step %d", retryAfter, i)
					.isFalse();
				assertThat(this.limiter.tryAcquire("client", request, now + retryAfter).allowed())
					.as("retry after %d ms at step %d", retryAfter, i)
					.isTrue();
				now += retryAfter;
				checked++;
			}
		}
		assertThat(checked).isGreaterThan(20);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void requestsSharingOneMillisecondAreAllCounted(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		int admitted = 0;
		for (int i = 0; i < 25; i++) {
			if (this.limiter.tryAcquire("client", limit, T0 + 500).allowed()) {
				admitted++;
			}
		}
		assertThat(admitted).isEqualTo(10);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void costAboveOneTakesThatManyUnits(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		for (int i = 0; i < 3; i++) {
			RateLimitDecision decision = this.limiter.tryAcquire("client", limit.withCost(3), T0);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(10 - 3 * (i + 1));
		}
		assertThat(this.limiter.tryAcquire("client", limit.withCost(3), T0).allowed()).isFalse();
		RateLimitDecision last = this.limiter.tryAcquire("client", limit, T0);
		assertThat(last.allowed()).isTrue();
		assertThat(last.remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void costAboveTheLimitIsNeverAdmittedAndConsumesNothing(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 10, 1000);
		assertThatIllegalArgumentException().isThrownBy(() -> limit.withCost(11).requireCostFits())
			.withMessageContaining("cost 11")
			.withMessageContaining("never");

		RateLimitDecision decision = this.limiter.tryAcquire("client", limit.withCost(11), T0);

		assertThat(decision.allowed()).isFalse();
		assertThat(decision.never()).isTrue();
		assertThat(decision.retryAfterMs()).isEqualTo(LimitDecision.NEVER);
		assertThat(decision.remaining()).isEqualTo(10);
		assertNothingStored();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void timeGoingBackwardsNeitherRefillsNorMovesStoredTime(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		long late = T0 + 10_500;
		exhaust("client", limit, late);
		Object state = state("client", limit);

		for (long earlier : new long[] { late - 1, late - 600, late - 5_000, T0 }) {
			RateLimitDecision decision = this.limiter.tryAcquire("client", limit, earlier);
			assertThat(decision.allowed()).as("request at %d ms before the last", late - earlier).isFalse();
			assertThat(decision.retryAfterMs()).isPositive();
		}
		assertSameState(state, state("client", limit), "after the requests at earlier times");
		// The limiter carries on from the latest time it saw.
		RateLimitDecision next = this.limiter.tryAcquire("client", limit, late);
		assertThat(this.limiter.tryAcquire("client", limit, late + next.retryAfterMs() - 1).allowed()).isFalse();
		assertThat(this.limiter.tryAcquire("client", limit, late + next.retryAfterMs()).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void limitsWithDifferentNamesDoNotShareState(Algorithm algorithm) {
		LimitDefinition first = LimitDefinition.of("first", algorithm, 3, Duration.ofSeconds(1));
		LimitDefinition second = LimitDefinition.of("second", algorithm, 3, Duration.ofSeconds(1));
		exhaust("client", first, T0);
		RateLimitDecision decision = this.limiter.tryAcquire("client", second, T0);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(2);
		assertThat(this.limiter.tryAcquire("other-client", first, T0).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void severalLimitsOnOneRequestAreAllOrNothing(Algorithm algorithm) {
		LimitDefinition perSecond = LimitDefinition.of("per-second", algorithm, 2, Duration.ofSeconds(1));
		LimitDefinition perHour = LimitDefinition.of("per-hour", Algorithm.SLIDING_LOG, 10, Duration.ofHours(1));
		List<LimitDefinition> both = List.of(perSecond, perHour);
		assertThat(this.limiter.tryAcquire("client", both, T0).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("client", both, T0).allowed()).isTrue();
		Object perHourBefore = state("client", perHour);

		RateLimitDecision denied = this.limiter.tryAcquire("client", both, T0);

		assertThat(denied.allowed()).isFalse();
		assertThat(denied.violated()).extracting((d) -> d.limit().name()).containsExactly("per-second");
		assertThat(denied.decisions().get(1).allowed()).isTrue();
		assertThat(denied.decisions().get(1).remaining()).isEqualTo(8);
		// The per-hour limit took nothing from the denied request.
		assertSameState(perHourBefore, state("client", perHour), "per-hour after the denied request");
		assertThat(this.limiter.tryAcquire("client", perHour, T0).remaining()).isEqualTo(7);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void severalLimitsDeniedByTheOtherLimitLeaveThisOneUntouched(Algorithm algorithm) {
		LimitDefinition tight = LimitDefinition.of("tight", Algorithm.FIXED_WINDOW, 1, Duration.ofHours(1));
		LimitDefinition limit = limit(algorithm, 5, 1000);
		assertThat(this.limiter.tryAcquire("client", List.of(limit, tight), T0).allowed()).isTrue();
		Object before = state("client", limit);
		for (int i = 1; i <= 20; i++) {
			RateLimitDecision denied = this.limiter.tryAcquire("client", List.of(limit, tight), T0 + 37 * i);
			assertThat(denied.allowed()).isFalse();
			assertThat(denied.violated()).extracting((d) -> d.limit().name()).containsExactly("tight");
		}
		assertSameState(before, state("client", limit), "after 20 requests denied by the other limit");
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aShadowLimitDeniesWithoutBlockingAndConsumesOnlyWhenItAdmits(Algorithm algorithm) {
		LimitDefinition shadow = LimitDefinition.of("shadow", algorithm, 2, Duration.ofHours(1)).withShadow(true);
		LimitDefinition enforced = LimitDefinition.of("enforced", Algorithm.FIXED_WINDOW, 5, Duration.ofHours(1));
		List<LimitDefinition> both = List.of(shadow, enforced);
		for (int i = 1; i <= 5; i++) {
			RateLimitDecision decision = this.limiter.tryAcquire("client", both, T0 + i);
			assertThat(decision.allowed()).as("request %d", i).isTrue();
			assertThat(decision.decisions().get(0).allowed()).as("shadow's own verdict, request %d", i).isEqualTo(i <= 2);
			assertThat(decision.shadowDenied()).hasSize((i <= 2) ? 0 : 1);
			assertThat(decision.violated()).isEmpty();
			// The summary is the enforced limit's.
			assertThat(decision.remaining()).isEqualTo(5 - i);
		}
		// The enforced limit consumed on every request, the shadow limit on the two it admitted: exactly as enforced.
		assertThat(this.limiter.tryAcquire("client", enforced, T0 + 10).allowed()).isFalse();
		Object shadowBefore = state("client", shadow);
		RateLimitDecision denied = this.limiter.tryAcquire("client", both, T0 + 11);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.violated()).extracting((d) -> d.limit().name()).containsExactly("enforced");
		assertSameState(shadowBefore, state("client", shadow), "shadow after a request the enforced limit denied");
		// Enforced now, the same limit reads the same state: two admitted, none left.
		assertThat(this.limiter.tryAcquire("client", shadow.withShadow(false), T0 + 12).allowed()).isFalse();
		assertThat(this.limiter.tryAcquire("fresh", shadow.withShadow(false), T0 + 12).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aShadowLimitConsumesNothingWhenAnEnforcedLimitDenies(Algorithm algorithm) {
		LimitDefinition shadow = limit(algorithm, 5, 1000).withShadow(true);
		LimitDefinition tight = LimitDefinition.of("tight", Algorithm.FIXED_WINDOW, 1, Duration.ofHours(1));
		assertThat(this.limiter.tryAcquire("client", List.of(shadow, tight), T0).allowed()).isTrue();
		Object before = state("client", shadow);
		for (int i = 1; i <= 10; i++) {
			RateLimitDecision denied = this.limiter.tryAcquire("client", List.of(shadow, tight), T0 + 37 * i);
			assertThat(denied.allowed()).isFalse();
			assertThat(denied.decisions().get(0).allowed()).isTrue();
		}
		assertSameState(before, state("client", shadow), "after 10 requests denied by the enforced limit");
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aRequestWithShadowLimitsOnlyIsAlwaysAdmitted(Algorithm algorithm) {
		LimitDefinition shadow = limit(algorithm, 3, 1000).withShadow(true);
		for (int i = 1; i <= 6; i++) {
			RateLimitDecision decision = this.limiter.tryAcquire("client", shadow, T0 + i);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.retryAfterMs()).isZero();
			assertThat(decision.shadowDenied()).hasSize((i <= 3) ? 0 : 1);
			assertThat(decision.remaining()).isEqualTo(Math.max(0, 3 - i));
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void peekShowsWhatTheNextRequestWouldGetAndConsumesNothing(Algorithm algorithm) {
		SplittableRandom random = new SplittableRandom(11);
		LimitDefinition limit = limit(algorithm, 6, 1000);
		long now = T0;
		int allowed = 0;
		int denied = 0;
		for (int i = 0; i < 300; i++) {
			now += random.nextInt(0, 120);
			LimitDefinition request = limit.withCost(random.nextInt(1, 4));
			LimitDecision peeked = this.limiter.peek("peeked", request, now);
			assertThat(this.limiter.peek("peeked", request, now)).as("second peek at step %d", i).isEqualTo(peeked);
			LimitDecision decided = this.limiter.tryAcquire("peeked", request, now).decisions().get(0);
			// the twin gets the same requests and is never peeked at: the peeks consumed nothing
			assertThat(this.limiter.tryAcquire("twin", request, now).decisions().get(0)).as("twin at step %d", i)
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
	@EnumSource(Algorithm.class)
	void peekWritesNothing(Algorithm algorithm) {
		LimitDefinition limit = limit(algorithm, 5, 1000);
		assertThat(this.limiter.peek("client", limit.withCost(2), T0))
			.isEqualTo(new LimitDecision(limit.withCost(2), true, 5, 0, 0, 0));
		assertThat(this.limiter.peek("client", limit.withCost(6), T0).never()).isTrue();
		assertNothingStored();

		exhaust("client", limit, T0 + 100);
		Object before = state("client", limit);
		for (long at : new long[] { T0 + 100, T0 + 150, T0 + 199 }) {
			LimitDecision peeked = this.limiter.peek("client", limit, at);
			assertThat(peeked.allowed()).as("at T0 + %d", at - T0).isFalse();
			assertThat(peeked.remaining()).as("at T0 + %d", at - T0).isZero();
		}
		assertSameState(before, state("client", limit), "after the peeks");
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
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

		assertThat(this.limiter.reset("client", List.of(limit, limit.withCost(2), otherShape))).isEqualTo(2);

		assertThat(this.limiter.peek("client", limit, T0)).isEqualTo(new LimitDecision(limit, true, 3, 0, 0, 0));
		exhaust("client", limit, T0);
		exhaust("client", otherShape, T0);
		assertSameState(otherBefore, state("client", other), "the client's other limit after the reset");
		assertSameState(neighbourBefore, state("neighbour", limit), "another client after the reset");
		assertThat(this.limiter.reset("nobody", List.of(limit))).isZero();
		assertThat(this.limiter.reset("client", List.of(LimitDefinition.of("unused", algorithm, 3, Duration.ofSeconds(1)))))
			.isZero();
	}

	@Test
	void inputErrorsAreRejectedBeforeAnythingIsDecided() {
		LimitDefinition limit = limit(Algorithm.TOKEN_BUCKET, 3, 1000);
		LimitDefinition sameName = LimitDefinition.of("limit", Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(2));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire("client", List.of()));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire("client", List.of(), T0));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.limiter.tryAcquire("client", List.of(limit, sameName)))
			.withMessageContaining("'limit'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.limiter.tryAcquire("client", List.of(limit, sameName), T0));
		for (long outOfRange : new long[] { -1, Long.MIN_VALUE, 1L << 52, Long.MAX_VALUE }) {
			assertThatIllegalArgumentException().as("nowMs %d", outOfRange)
				.isThrownBy(() -> this.limiter.tryAcquire("client", limit, outOfRange))
				.withMessageContaining("nowMs");
		}
		assertThatNullPointerException().isThrownBy(() -> this.limiter.tryAcquire(null, limit, T0));
		for (long outOfRange : new long[] { -1, 1L << 52 }) {
			assertThatIllegalArgumentException().as("peek at nowMs %d", outOfRange)
				.isThrownBy(() -> this.limiter.peek("client", limit, outOfRange))
				.withMessageContaining("nowMs");
		}
		assertThatNullPointerException().isThrownBy(() -> this.limiter.peek(null, limit, T0));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.reset("client", List.of()));
		assertThatNullPointerException().isThrownBy(() -> this.limiter.reset(null, List.of(limit)));
		assertNothingStored();
		// the ends of the range are times like any other
		assertThat(this.limiter.tryAcquire("client", limit, 0).remaining()).isEqualTo(2);
		assertThat(this.limiter.tryAcquire("late-client", limit, (1L << 52) - 1).remaining()).isEqualTo(2);
	}

	static LimitDefinition limit(Algorithm algorithm, long limit, long windowMs) {
		return LimitDefinition.of("limit", algorithm, limit, Duration.ofMillis(windowMs));
	}

	void exhaust(String client, LimitDefinition limit, long now) {
		int admitted = 0;
		while (this.limiter.tryAcquire(client, limit, now).allowed()) {
			admitted++;
		}
		assertThat(admitted).isEqualTo(limit.limit());
	}

}
