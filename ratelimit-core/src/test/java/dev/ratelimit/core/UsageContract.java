package dev.ratelimit.core;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.core.CalendarPeriod.Unit;
import dev.ratelimit.core.Usage.Period;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Usage (docs/ALGORITHMS.md, "Usage") on one backend, with explicit time: the units each client used per period,
 * debt included; nothing for a denial; refunds in the reservation's period; the previous period; pages largest first;
 * the cap and its overflow; every set's expiry; exact under concurrent decisions.
 */
abstract class UsageContract {

	static final long DEC_1 = ms("2026-12-01T00:00:00Z");

	static final long DEC_15 = ms("2026-12-15T12:00:00Z");

	static final long JAN_1 = ms("2027-01-01T00:00:00Z");

	static final long JAN_15 = ms("2027-01-15T12:00:00Z");

	static final long FEB_1 = ms("2027-02-01T00:00:00Z");

	static final long MAR_1 = ms("2027-03-01T00:00:00Z");

	/** 10 per hour, usage per calendar month in UTC (the default of a limit without a calendar period). */
	static final LimitDefinition API = LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 10, Duration.ofHours(1))
		.withUsage();

	RateLimiter limiter;

	abstract RateLimiter newLimiter();

	/**
	 * The time to live in ms of the limit's usage in {@code [start, end)} after a write at {@code now}, as the backend
	 * counts it (Redis: PTTL on its own clock; in memory: the deadline on the limiter's clock).
	 */
	abstract long usageTtlAfter(LimitDefinition limit, long start, long end, long now);

	@BeforeEach
	void newLimiterForTheTest() {
		this.limiter = newLimiter();
	}

	static long ms(String instant) {
		return Instant.parse(instant).toEpochMilli();
	}

	RateLimitDecision decide(long now, String client, LimitRequest... limits) {
		return at(this.limiter, now).tryAcquire(client, List.of(limits));
	}

	Usage usage(long now, LimitDefinition limit, Period period) {
		return at(this.limiter, now).usage(limit, period, 0, Usage.MAX_PAGE_SIZE);
	}

	@Test
	void usageIsWhatTheAdmittedRequestsCostAndADeniedRequestAddsNothing() {
		assertThat(decide(DEC_15, "key:zoë", API.request(4)).allowed()).isTrue();
		assertThat(decide(DEC_15, "key:zoë", API.request(4)).allowed()).isTrue();
		assertThat(decide(DEC_15, "key:zoë", API.request(4)).allowed()).isFalse();
		assertThat(decide(DEC_15, "key:zoë", API.request(2)).allowed()).isTrue();
		assertThat(decide(DEC_15, "key:zoë", API.request(1)).allowed()).isFalse();
		// a new hour: the limit's window ends, the month's usage goes on
		assertThat(decide(DEC_15 + 3_600_000, "key:zoë", API.request(3)).allowed()).isTrue();
		assertThat(decide(DEC_15, "ip:2001:db8::1", API.request()).allowed()).isTrue();

		Usage usage = usage(DEC_15, API, Period.CURRENT);
		assertThat(usage.entries()).extracting(ClientUsage::clientId, ClientUsage::units)
			.containsExactly(tuple("key:zoë", 13L), tuple("ip:2001:db8::1", 1L));
		assertThat(usage.clients()).isEqualTo(2);
		assertThat(usage.overflowUnits()).isZero();
		assertThat(usage.limit()).isEqualTo("api");
		assertThat(usage.periodStart()).isEqualTo(Instant.ofEpochMilli(DEC_1));
		assertThat(usage.periodEnd()).isEqualTo(Instant.ofEpochMilli(JAN_1));
		// a peek reads, and records nothing
		at(this.limiter, DEC_15).peek("key:zoë", API.request());
		assertThat(usage(DEC_15, API, Period.CURRENT).entries().get(0).units()).isEqualTo(13);
	}

	@Test
	void unitsSettledBeyondTheBudgetCountAsUsage() {
		// 10,000 tokens a day in Berlin, its usage per that day: what the quota counts, debt included
		LimitDefinition tokens = LimitDefinition
			.calendar("tokens", 10_000, CalendarPeriod.of(Unit.DAY, ZoneId.of("Europe/Berlin")))
			.withUsage();
		LimitDecision reserved = decide(DEC_15, "key:acme", tokens.request(1000)).decisions().get(0);
		assertThat(reserved.allowed()).isTrue();
		LimitDecision settled = at(this.limiter, DEC_15 + 1000)
			.settle("key:acme", List.of(Settlement.of(reserved, 10_500)))
			.decisions()
			.get(0);
		assertThat(settled.remaining()).isZero();
		assertThat(decide(DEC_15 + 2000, "key:acme", tokens.request(1)).allowed()).isFalse();

		Usage usage = usage(DEC_15, tokens, Period.CURRENT);
		assertThat(usage.entries()).containsExactly(new ClientUsage("key:acme", 10_500));
		assertThat(usage.periodStart()).isEqualTo(Instant.parse("2026-12-14T23:00:00Z"));
	}

	@Test
	void aRefundTakesUnitsBackInTheReservationsPeriodAndAChargeCountsWhenSettled() {
		LimitDefinition llm = LimitDefinition.of("llm", Algorithm.TOKEN_BUCKET, 1000, Duration.ofMinutes(1))
			.withUsage();
		long lastMinuteOfDecember = JAN_1 - 60_000;
		LimitDecision big = decide(lastMinuteOfDecember, "key:a", llm.request(100)).decisions().get(0);
		LimitDecision small = decide(lastMinuteOfDecember, "key:b", llm.request(10)).decisions().get(0);
		// settled in January: the 70 unused units leave December, the 15 beyond the reservation count in January
		at(this.limiter, JAN_1 + 1000).settle("key:a", List.of(Settlement.of(big, 30)));
		at(this.limiter, JAN_1 + 1000).settle("key:b", List.of(Settlement.of(small, 25)));

		assertThat(usage(JAN_15, llm, Period.PREVIOUS).entries())
			.containsExactly(new ClientUsage("key:a", 30), new ClientUsage("key:b", 10));
		assertThat(usage(JAN_15, llm, Period.CURRENT).entries()).containsExactly(new ClientUsage("key:b", 15));

		// a refund never takes usage below 0, nor anything from a period that holds none of the reservation
		at(this.limiter, JAN_1 + 2000).settle("key:a", List.of(new Settlement(llm.request(500), DEC_15, 0)));
		assertThat(usage(JAN_15, llm, Period.PREVIOUS).entries()).containsExactly(new ClientUsage("key:b", 10),
				new ClientUsage("key:a", 0));
		at(this.limiter, JAN_1 + 3000).settle("key:b", List.of(new Settlement(llm.request(5), DEC_1 - 1, 0)));
		assertThat(usage(JAN_15, llm, Period.CURRENT).entries()).containsExactly(new ClientUsage("key:b", 15));
	}

	@Test
	void thePreviousPeriodIsReadUntilItIsTwoPeriodsOld() {
		decide(DEC_15, "key:december", API.request(3));
		decide(JAN_15, "key:january", API.request(2));

		assertThat(usage(JAN_15, API, Period.PREVIOUS).entries()).containsExactly(new ClientUsage("key:december", 3));
		assertThat(usage(JAN_15, API, Period.PREVIOUS).periodStart()).isEqualTo(Instant.ofEpochMilli(DEC_1));
		assertThat(usage(JAN_15, API, Period.CURRENT).entries()).containsExactly(new ClientUsage("key:january", 2));
		assertThat(usage(DEC_15, API, Period.CURRENT).entries()).containsExactly(new ClientUsage("key:december", 3));
		// February reads January as its previous month, and nothing of December
		assertThat(usage(FEB_1, API, Period.PREVIOUS).entries()).containsExactly(new ClientUsage("key:january", 2));
		assertThat(usage(FEB_1, API, Period.CURRENT).entries()).isEmpty();
		assertThat(usage(FEB_1, API, Period.CURRENT).clients()).isZero();
	}

	@Test
	void everyUsageSetExpiresAtTheEndOfThePeriodAfterIt() {
		decide(DEC_15, "key:a", API.request());
		assertThat(usageTtlAfter(API, DEC_1, JAN_1, DEC_15)).isBetween(FEB_1 - DEC_15 - 60_000, FEB_1 - DEC_15 + 1000);
		decide(JAN_15, "key:a", API.request());
		assertThat(usageTtlAfter(API, JAN_1, FEB_1, JAN_15)).isBetween(MAR_1 - JAN_15 - 60_000,
				MAR_1 - JAN_15 + 1000);
	}

	@Test
	void pagesListTheLargestFirstAndEqualUnitsByTheIdDescending() {
		LimitDefinition big = LimitDefinition.of("big", Algorithm.FIXED_WINDOW, 1000, Duration.ofHours(1)).withUsage();
		long[] units = { 5, 9, 5, 1, 7 };
		for (int i = 0; i < units.length; i++) {
			decide(DEC_15, "key:c" + i, big.request(units[i]));
		}
		List<String> pages = new ArrayList<>();
		for (int page = 0; page < 4; page++) {
			Usage usage = at(this.limiter, DEC_15).usage(big, Period.CURRENT, page, 2);
			assertThat(usage.clients()).isEqualTo(5);
			assertThat(usage.page()).isEqualTo(page);
			assertThat(usage.size()).isEqualTo(2);
			assertThat(usage.entries()).hasSizeLessThanOrEqualTo(2);
			usage.entries().forEach((entry) -> pages.add(entry.clientId() + "=" + entry.units()));
		}
		assertThat(pages).containsExactly("key:c1=9", "key:c4=7", "key:c2=5", "key:c0=5", "key:c3=1");
	}

	@Test
	void atTheCapANewClientsUnitsGoToTheOverflowAndRecordedClientsGoOnCounting() {
		LimitDefinition capped = LimitDefinition.of("capped", Algorithm.FIXED_WINDOW, 1000, Duration.ofHours(1))
			.withUsage(UsageRecording.of(CalendarPeriod.of(Unit.MONTH)).withMaxClients(2));
		decide(DEC_15, "key:a", capped.request(1));
		decide(DEC_15, "key:b", capped.request(2));
		decide(DEC_15, "key:c", capped.request(3));
		LimitDecision d = decide(DEC_15, "key:d", capped.request(4)).decisions().get(0);
		decide(DEC_15, "key:a", capped.request(5));
		decide(DEC_15, "key:c", capped.request(1));

		Usage usage = usage(DEC_15, capped, Period.CURRENT);
		assertThat(usage.entries()).containsExactly(new ClientUsage("key:a", 6), new ClientUsage("key:b", 2));
		assertThat(usage.clients()).isEqualTo(2);
		assertThat(usage.overflowUnits()).isEqualTo(8);
		// pages skip the overflow wherever its units rank it
		assertThat(at(this.limiter, DEC_15).usage(capped, Period.CURRENT, 1, 1).entries())
			.containsExactly(new ClientUsage("key:b", 2));
		assertThat(at(this.limiter, DEC_15).usage(capped, Period.CURRENT, 2, 1).entries()).isEmpty();

		// a refund of a client left out comes back from the overflow
		at(this.limiter, DEC_15).settle("key:d", List.of(Settlement.of(d, 1)));
		assertThat(usage(DEC_15, capped, Period.CURRENT).overflowUnits()).isEqualTo(5);
	}

	@Test
	void aShadowLimitRecordsWhatItConsumesAndADenialByAnotherLimitRecordsNothing() {
		LimitDefinition shadow = LimitDefinition.of("shadow", Algorithm.FIXED_WINDOW, 2, Duration.ofHours(1)).withUsage();
		LimitDefinition strict = LimitDefinition.of("strict", Algorithm.SLIDING_WINDOW_COUNTER, 3, Duration.ofHours(1));
		for (int i = 0; i < 5; i++) {
			decide(DEC_15, "key:a", shadow.request().withShadow(true), API.request(), strict.request());
		}
		// three admitted: the shadow limit consumed (and recorded) two, API three; the rest denied by "strict"
		assertThat(usage(DEC_15, shadow, Period.CURRENT).entries()).containsExactly(new ClientUsage("key:a", 2));
		assertThat(usage(DEC_15, API, Period.CURRENT).entries()).containsExactly(new ClientUsage("key:a", 3));
		// a limit without usage before the one with it
		assertThat(decide(DEC_15, "key:b", strict.request(), API.request(2)).allowed()).isTrue();
		assertThat(usage(DEC_15, API, Period.CURRENT).entries()).containsExactly(new ClientUsage("key:a", 3),
				new ClientUsage("key:b", 2));
	}

	@Test
	void anUsagePeriodOfItsOwnCountsInItsZone() {
		LimitDefinition perMinute = LimitDefinition.of("pm", Algorithm.TOKEN_BUCKET, 100, Duration.ofMinutes(1))
			.withUsage(UsageRecording.of(CalendarPeriod.of(Unit.DAY, ZoneId.of("Europe/Berlin"))));
		long berlinMidnight = ms("2026-12-15T23:00:00Z");
		decide(berlinMidnight - 1, "key:a", perMinute.request(7));
		decide(berlinMidnight, "key:a", perMinute.request(2));
		assertThat(usage(berlinMidnight, perMinute, Period.PREVIOUS).entries())
			.containsExactly(new ClientUsage("key:a", 7));
		assertThat(usage(berlinMidnight, perMinute, Period.CURRENT).entries())
			.containsExactly(new ClientUsage("key:a", 2));
	}

	@Test
	void concurrentDecisionsRecordExactlyTheAdmittedCosts() throws Exception {
		LimitDefinition limit = LimitDefinition.of("busy", Algorithm.TOKEN_BUCKET, 60, Duration.ofHours(1)).withUsage();
		RateLimiter clocked = at(this.limiter, DEC_15);
		Map<String, AtomicLong> admitted = new ConcurrentHashMap<>();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				Random random = new Random(t);
				done.add(threads.submit(() -> {
					for (int i = 0; i < 150; i++) {
						String client = "key:" + random.nextInt(4);
						long cost = 1 + random.nextInt(3);
						if (clocked.tryAcquire(client, List.of(limit.request(cost))).allowed()) {
							admitted.computeIfAbsent(client, (c) -> new AtomicLong()).addAndGet(cost);
						}
					}
					return null;
				}));
			}
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		// 8 x 150 requests of 2 units on average against 4 budgets of 60: most are denied
		assertThat(admitted.values().stream().mapToLong(AtomicLong::get).sum()).isEqualTo(240);
		Usage usage = usage(DEC_15, limit, Period.CURRENT);
		assertThat(usage.entries()).hasSize(admitted.size());
		for (ClientUsage entry : usage.entries()) {
			assertThat(entry.units()).as(entry.clientId()).isEqualTo(admitted.get(entry.clientId()).get());
		}
	}

	@Test
	void aLimitWithoutUsageOrABadPageCannotBeRead() {
		LimitDefinition plain = LimitDefinition.of("plain", Algorithm.FIXED_WINDOW, 10, Duration.ofHours(1));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.usage(plain, Period.CURRENT, 0, 10))
			.withMessageContaining("'plain' records no usage");
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.usage(API, Period.CURRENT, -1, 10));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.usage(API, Period.CURRENT, 0, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.usage(API, Period.CURRENT, 0, 1001));
	}

}
