package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link DenialCache} answers and for how long, on a clock the tests move (ns). The decisions are written
 * out as a limiter would give them; what the HTTP responses make of a remembered denial is in
 * {@link dev.ratelimit.spring.web.RememberedDenialsContract}.
 */
class DenialCacheTests {

	private static final long MS = 1_000_000;

	private static final LimitRequest HOURLY = LimitDefinition.of("hourly", Algorithm.SLIDING_LOG, 2,
			Duration.ofHours(1)).request();

	private static final LimitRequest SECONDLY = LimitDefinition.of("secondly", Algorithm.TOKEN_BUCKET, 5,
			Duration.ofSeconds(1)).request();

	private final AtomicLong nanos = new AtomicLong(7 * MS);

	private final DenialCache denials = new DenialCache(true, Duration.ofSeconds(10), 100, this.nanos::get);

	@Test
	void aDenialAnswersUntilItsRetryAfterWithItsWaitsShortenedByTheTimeSince() {
		RateLimitDecision denied = decision(denied(HOURLY, 0, 4_000, 3_500_000, 4_000));
		this.denials.remember("key:k", List.of(HOURLY), denied, this.nanos.get());

		this.nanos.addAndGet(1_250 * MS);
		assertThat(this.denials.recall("key:k", List.of(HOURLY)).decisions())
			.containsExactly(denied(HOURLY, 0, 2_750, 3_498_750, 2_750));
		this.nanos.addAndGet(2_749 * MS);
		assertThat(this.denials.recall("key:k", List.of(HOURLY)).retryAfterMs()).hasValue(1);
		this.nanos.addAndGet(1 * MS);
		assertThat(this.denials.recall("key:k", List.of(HOURLY))).as("at its retry-after").isNull();
	}

	@Test
	void noDenialAnswersLongerThanTheMaximumAge() {
		this.denials.remember("key:k", List.of(HOURLY),
				decision(denied(HOURLY, 0, 3_000_000, 3_000_000, 3_000_000)), this.nanos.get());
		this.nanos.addAndGet(9_999 * MS);
		assertThat(this.denials.recall("key:k", List.of(HOURLY)).retryAfterMs()).hasValue(3_000_000 - 9_999);
		this.nanos.addAndGet(1 * MS);
		assertThat(this.denials.recall("key:k", List.of(HOURLY))).isNull();
	}

	@Test
	void withSeveralDenyingLimitsTheShortestWaitEndsIt() {
		this.denials.remember("key:k", List.of(SECONDLY, HOURLY),
				decision(denied(SECONDLY, 0, 200, 1_000, 200),
						denied(HOURLY, 0, 5_000, 3_600_000, 5_000)),
				this.nanos.get());
		this.nanos.addAndGet(199 * MS);
		assertThat(this.denials.recall("key:k", List.of(SECONDLY, HOURLY)).violated()).hasSize(2);
		this.nanos.addAndGet(1 * MS);
		// from now on the per-second limit would admit: its remembered verdict would be wrong
		assertThat(this.denials.recall("key:k", List.of(SECONDLY, HOURLY))).isNull();
	}

	@Test
	void onlyTheSameClientLimitsAndCostAreAnswered() {
		LimitRequest costly = HOURLY.withCost(2);
		this.denials.remember("key:k", List.of(costly),
				decision(denied(costly, 1, 4_000, 3_500_000, 4_000)), this.nanos.get());

		assertThat(this.denials.recall("key:k", List.of(costly))).isNotNull();
		assertThat(this.denials.recall("key:k", List.of(HOURLY.withCost(3))))
			.as("a costlier request waits longer than the remembered retry-after").isNull();
		assertThat(this.denials.recall("key:k", List.of(HOURLY))).as("a cheaper request may fit").isNull();
		assertThat(this.denials.recall("key:other", List.of(costly))).isNull();
		assertThat(this.denials.recall("key:k", List.of(costly, SECONDLY))).as("other limits").isNull();
		LimitRequest pro = new LimitDefinition("hourly", Algorithm.SLIDING_LOG, 20, Duration.ofHours(1), 20).request(2);
		assertThat(this.denials.recall("key:k", List.of(pro))).as("another shape (another plan)").isNull();
		assertThat(this.denials.recall("key:k", List.of(costly.withShadow(true)))).as("shadow").isNull();
	}

	@Test
	void admittedNeverAdmissibleAndSwitchedOffDecisionsAreNotRemembered() {
		this.denials.remember("key:a", List.of(HOURLY), decision(LimitDecision.allowed(HOURLY, new LimitDecision.Allowance(1, 1_000, 1_000))),
				this.nanos.get());
		this.denials.remember("key:n", List.of(HOURLY),
				decision(LimitDecision.never(HOURLY, new LimitDecision.Allowance(2, 0, 0))), this.nanos.get());
		DenialCache off = new DenialCache(false, Duration.ofSeconds(10), 100, this.nanos::get);
		RateLimitDecision denied = decision(denied(HOURLY, 0, 4_000, 4_000, 4_000));
		off.remember("key:k", List.of(HOURLY), denied, this.nanos.get());

		assertThat(this.denials.recall("key:a", List.of(HOURLY))).isNull();
		assertThat(this.denials.recall("key:n", List.of(HOURLY))).isNull();
		assertThat(off.recall("key:k", List.of(HOURLY))).isNull();
	}

	@Test
	void forgettingAClientEndsItsDenialsAndTheLeastRecentClientsGoFirst() {
		RateLimitDecision denied = decision(denied(HOURLY, 0, 4_000, 4_000, 4_000));
		this.denials.remember("key:k", List.of(HOURLY), denied, this.nanos.get());
		this.denials.forget("key:k");
		assertThat(this.denials.recall("key:k", List.of(HOURLY))).isNull();

		DenialCache small = new DenialCache(true, Duration.ofSeconds(10), 2, this.nanos::get);
		for (String client : List.of("key:1", "key:2", "key:3")) {
			small.remember(client, List.of(HOURLY), denied, this.nanos.get());
		}
		assertThat(small.recall("key:1", List.of(HOURLY))).isNull();
		assertThat(small.recall("key:2", List.of(HOURLY))).isNotNull();
		assertThat(small.recall("key:3", List.of(HOURLY))).isNotNull();
	}

	/** A denial of {@code request} that a wait of {@code retryAfterMs} lifts. */
	private static LimitDecision denied(LimitRequest request, long remaining, long retryAfterMs, long resetAfterMs,
			long moreAfterMs) {
		return LimitDecision.denied(request, retryAfterMs,
				new LimitDecision.Allowance(remaining, resetAfterMs, moreAfterMs));
	}

	private static RateLimitDecision decision(LimitDecision... decisions) {
		return new RateLimitDecision(List.of(decisions));
	}

}
