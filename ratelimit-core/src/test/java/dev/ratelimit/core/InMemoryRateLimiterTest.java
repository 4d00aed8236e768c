package dev.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * What only {@link InMemoryRateLimiter} has: memory bounded by the clients that can still matter, state expiring
 * as its Redis key would (after its relative TTL on the limiter's clock, whatever the requests' explicit time), and
 * clients swept while others decide. The rules it shares with Redis are {@link InMemoryAlgorithmContractTest},
 * {@link DifferentialTest} and the other contract subclasses.
 */
class InMemoryRateLimiterTest {

	private static final long T0 = 1_791_860_000_000L;

	/** The scripts' TTL margin ({@code TTL_MARGIN_MS} in common.lua), added to every TTL they set. */
	private static final long MARGIN_MS = 1000;

	/**
	 * A million distinct clients, one request each at the clock's time, 100 clients per ms (10 s in all), fixed
	 * window of 100 ms. (At 1,000 clients per ms the whole run would last 1 s, less than one TTL, and no client
	 * would have expired by its end.)
	 *
	 * <p>
	 * The bound. A client's state expires on the limiter's clock at most W + 1000 ms after its request (its window's
	 * end plus the scripts' margin), and it is swept once the clock is past that, so at any time at most
	 * {@code live = 100 × (W + 1000 + 1)} clients are unexpired (110,100). Expired clients wait for the sweep,
	 * which examines 4 clients for every new one: one pass over the M stored clients, including those the
	 * (weakly consistent) iterator sees being added during the pass, one for every 4 examined, takes at most
	 * {@code (4/3 × M) / 4 = M / 3} new clients, and every client that expires is reached within one pass. So at most
	 * about M / 3 expired clients wait, {@code M <= live + M / 3}, {@code M <= 1.5 × live}. The test allows twice
	 * {@code live}: generous, and still a fifth of the million clients a limiter that never forgets would hold.
	 */
	@Test
	void memoryHoldsOnlyTheClientsWithinTheLongestTtl() {
		MutableClock clock = new MutableClock(T0);
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock);
		long window = 100;
		LimitDefinition limit = LimitDefinition.of("scan", Algorithm.FIXED_WINDOW, 5, Duration.ofMillis(window));
		int clients = 1_000_000;
		int perMs = 100;
		long live = perMs * (window + MARGIN_MS + 1);
		long bound = 2 * live;
		int most = 0;
		for (int i = 0; i < clients; i++) {
			if (i > 0 && i % perMs == 0) {
				clock.advance(1);
			}
			assertThat(limiter.tryAcquire("client-" + i, limit).allowed()).isTrue();
			if (i % 1000 == 999) {
				int stored = limiter.storedClients();
				most = Math.max(most, stored);
				assertThat(stored).as("clients stored after %d", i + 1).isLessThan((int) bound);
			}
		}
		System.out.println("InMemoryRateLimiterTest: at most " + most + " of " + clients + " clients stored (" + live
				+ " within the longest TTL, bound " + bound + ")");
		// memory is not bounded by forgetting clients that still matter: every client of the last second (each TTL
		// is at least the 1 s margin) still has its state
		for (int i = clients - perMs * (int) MARGIN_MS; i < clients; i++) {
			assertThat(limiter.deadline("client-" + i, limit).orElseThrow()).as("expiry of client-%d", i)
				.isGreaterThanOrEqualTo(clock.millis());
		}

		// Once the clock is past every TTL, every stored client has expired: new clients bring the count down.
		clock.advance(window + MARGIN_MS + 1);
		int before = limiter.storedClients();
		for (int i = 0; i < 1000; i++) {
			limiter.tryAcquire("late-" + i, limit);
		}
		// 1,000 new clients examine 4,000 stored ones; at most 2,000 of those are new (a pass sees each entry
		// once, and 4,000 examinations of more than 4,000 entries span at most two passes): at least 2,000 of the
		// expired ones are removed
		assertThat(limiter.storedClients()).isLessThanOrEqualTo(before + 1000 - 2000);
		// As many new clients as were stored make 4 × before examinations, two whole passes over at most
		// 2 × before entries: every expired client has been reached, only the new ones are left.
		int more = before - 1000;
		for (int i = 0; i < more; i++) {
			limiter.tryAcquire("later-" + i, limit);
		}
		assertThat(limiter.storedClients()).isEqualTo(1000 + more);
	}

	/**
	 * After a scan, its clients go though no new client arrives, while the limiter decides known clients: each
	 * second of the clock brings a batch of the sweep. A batch examines a 64th of the clients there were when its
	 * pass began, at least 1,024. The pass under way at the end of the scan began with at least 4/5 of the 200,000
	 * clients (a pass over P clients takes P / 4 new clients, which add P / 4 more), so its rest takes at most
	 * 200,000 / (160,000 / 64) = 80 batches, and the next pass, which reaches every expired client, 64: 150 seconds
	 * are enough.
	 */
	@Test
	void expiredClientsGoWhileOnlyKnownClientsAreDecided() {
		MutableClock clock = new MutableClock(T0);
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock);
		LimitDefinition limit = LimitDefinition.of("scan", Algorithm.SLIDING_LOG, 5, Duration.ofMillis(100));
		limiter.tryAcquire("known", limit);
		int scan = 200_000;
		for (int i = 0; i < scan; i++) {
			limiter.tryAcquire("scan-" + i, limit);
		}
		assertThat(limiter.storedClients()).isEqualTo(scan + 1);
		clock.advance(100 + MARGIN_MS + 1);
		for (int second = 0; second < 150; second++) {
			clock.advance(1000);
			assertThat(limiter.tryAcquire("known", limit).allowed()).isTrue();
		}
		assertThat(limiter.storedClients()).as("clients left after 150 s of a known client's requests").isEqualTo(1);
	}

	/**
	 * A request whose explicit {@code now} is past a state's TTL expires nothing, as it expires no Redis key (Redis
	 * counts a TTL on its own clock, {@link #stateExpiresAfterItsTtlOnTheLimitersClock} the in-memory one): a request
	 * going back to the time of the state afterwards is still decided at the stored time (denied, its waits counted
	 * from there), as the exact model decides it. (The sliding log is left out: a request a window later trims its
	 * entries, an algorithm's step that Redis takes too, {@link #slidingLogTrimmedToNothingIsNoState}.)
	 *
	 * <p>
	 * The TTL is the script's, counted from the request at {@code T0 + 250} that exhausted L = 3 per W = 1 s, on the
	 * clock at T0: fixed window, to the window's end plus the 1 s margin; sliding window counter, to the end of the
	 * next window plus the margin; token bucket, the time to refill the empty bucket (W) plus the margin. Before this
	 * rule, the request an hour later dropped the state and the one going back found a full allowance (issue 24).
	 */
	@ParameterizedTest
	@CsvSource({ "FIXED_WINDOW, 1750", "SLIDING_WINDOW_COUNTER, 2750", "TOKEN_BUCKET, 2000" })
	void explicitTimePastTheTtlExpiresNothing(Algorithm algorithm, long ttl) {
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(new MutableClock(T0));
		ExactModel model = new ExactModel();
		LimitDefinition limit = LimitDefinition.of("expiring", algorithm, 3, Duration.ofSeconds(1));
		LimitRequest never = limit.request(4);
		long at = T0 + 250;
		for (int i = 0; i < 4; i++) {
			assertSame(at(limiter, at).tryAcquire("client", limit), model.decide("client", limit.request(), at));
		}
		assertThat(limiter.deadline("client", limit)).hasValue(T0 + ttl);

		// an hour later on the requests' time, the clock unmoved: a request that can never fit writes nothing
		long later = at + 3_600_000;
		assertSame(at(limiter, later).tryAcquire("client", never), model.decide("client", never, later));
		assertThat(limiter.deadline("client", limit)).hasValue(T0 + ttl);
		RateLimitDecision back = at(limiter, at + 10).tryAcquire("client", limit);
		assertThat(back.allowed()).as("back in time after a request past the TTL").isFalse();
		assertSame(back, model.decide("client", limit.request(), at + 10));
	}

	/**
	 * The sliding log has no state to expire once its newest entry has left the window: the request that trims the
	 * last entries finds an empty log, which Redis deletes with its key, and so does the in-memory limiter, even
	 * when the request itself is denied and writes nothing.
	 */
	@Test
	void slidingLogTrimmedToNothingIsNoState() {
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(new MutableClock(T0));
		LimitDefinition limit = LimitDefinition.of("log", Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(1));
		LimitRequest never = limit.request(4);
		long at = T0 + 250;
		at(limiter, at).tryAcquire("client", limit);
		at(limiter, at + 100).tryAcquire("client", limit);
		// the TTL from the newest entry: one window plus the margin, on the clock (at T0)
		assertThat(limiter.deadline("client", limit)).hasValue(T0 + 1000 + MARGIN_MS);

		// entries with score <= now - W leave: at at + 1099 the entry at at + 100 is still in the window
		assertThat(at(limiter, at + 1099).tryAcquire("client", never).remaining()).isEqualTo(2);
		assertThat(limiter.deadline("client", limit)).hasValue(T0 + 1000 + MARGIN_MS);
		assertThat(at(limiter, at + 1100).tryAcquire("client", never).remaining()).isEqualTo(3);
		assertThat(limiter.deadline("client", limit)).isEmpty();
		// gone: a request back in time is decided at its own time, not held to the entry that left
		RateLimitDecision back = at(limiter, at).tryAcquire("client", limit);
		assertThat(back.allowed()).isTrue();
		assertThat(back.decisions().get(0).resetAfterMs()).isEqualTo(1000);
	}

	/**
	 * State also expires after its relative TTL on the limiter's clock, as Redis counts a PEXPIRE, however far the
	 * explicit time of the requests is from that clock: the TTLs are those of the previous test, counted from the
	 * request at T0 + 250 (for the sliding log: one window past its newest entry plus the margin).
	 */
	@ParameterizedTest
	@CsvSource({ "FIXED_WINDOW, 1750", "SLIDING_LOG, 2000", "SLIDING_WINDOW_COUNTER, 2750", "TOKEN_BUCKET, 2000" })
	void stateExpiresAfterItsTtlOnTheLimitersClock(Algorithm algorithm, long ttl) {
		long clockStart = 1_000_000_000L;
		MutableClock clock = new MutableClock(clockStart);
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock);
		LimitDefinition limit = LimitDefinition.of("expiring", algorithm, 3, Duration.ofSeconds(1));
		long at = T0 + 250;
		for (int i = 0; i < 3; i++) {
			assertThat(at(limiter, at).tryAcquire("client", limit).allowed()).isTrue();
		}
		clock.set(clockStart + ttl);
		assertThat(at(limiter, at).tryAcquire("client", limit).allowed()).as("at the end of the TTL").isFalse();
		assertThat(limiter.deadline("client", limit)).hasValue(clockStart + ttl);
		clock.set(clockStart + ttl + 1);
		RateLimitDecision fresh = at(limiter, at).tryAcquire("client", limit);
		assertThat(fresh.allowed()).as("past the TTL").isTrue();
		assertThat(fresh.remaining()).isEqualTo(2);
	}

	/**
	 * Clients swept while other threads decide stay exact. In each phase the clock is past every TTL of the
	 * previous phase (phases 30 s apart, TTLs at most two 10 s windows plus the margin), so all 64 "old" clients are
	 * expired and sweepable; 8 threads decide 2 requests for each of them (16 per client, in each thread's own
	 * order) while deciding new clients, 5 after each request, each of which sweeps 4 stored clients, and moving
	 * the clock forward 1 ms every other new client (at most about 2.6 s per phase: every request of a phase stays
	 * in one window, and in one sliding window). Whatever the interleaving of sweeps and decisions, each old client
	 * must be admitted exactly L = 7 times per phase: a decision on a client being swept that got lost, or counted
	 * in a second copy of its state, changes that count. (The token bucket is left out: it refills as the clock
	 * moves within a phase, so its count would depend on timing.)
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "CONCURRENCY" }, mode = EnumSource.Mode.EXCLUDE)
	void clientsSweptWhileOthersDecideStayExact(Algorithm algorithm) throws Exception {
		int threads = 8;
		int oldClients = 64;
		int phases = 6;
		long limitPerWindow = 7;
		MutableClock clock = new MutableClock(T0);
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock);
		LimitDefinition limit = LimitDefinition.of("swept", algorithm, limitPerWindow, Duration.ofSeconds(10));
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int phase = 0; phase < phases; phase++) {
				clock.set(T0 + phase * 30_000L);
				AtomicIntegerArray admitted = new AtomicIntegerArray(oldClients);
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Integer>> results = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int thread = t;
					int currentPhase = phase;
					Callable<Integer> task = () -> {
						List<Integer> order = new ArrayList<>();
						for (int c = 0; c < oldClients; c++) {
							order.add(c);
							order.add(c);
						}
						Collections.shuffle(order, new Random(31L * currentPhase + thread));
						start.await();
						int newAdmitted = 0;
						int added = 0;
						for (int c : order) {
							if (limiter.tryAcquire("old-" + c, limit).allowed()) {
								admitted.incrementAndGet(c);
							}
							for (int n = 0; n < 5; n++) {
								String id = "new-" + currentPhase + "-" + thread + "-" + added;
								if (limiter.tryAcquire(id, limit).allowed()) {
									newAdmitted++;
								}
								if (++added % 2 == 0) {
									clock.advance(1);
								}
							}
						}
						return newAdmitted - added;
					};
					results.add(pool.submit(task));
				}
				start.countDown();
				for (Future<Integer> result : results) {
					assertThat(result.get(60, TimeUnit.SECONDS)).as("new clients denied in phase %d", phase).isZero();
				}
				assertThat(clock.millis() - (T0 + phase * 30_000L)).as("clock moved within phase %d", phase)
					.isPositive()
					.isLessThan(5_000);
				for (int c = 0; c < oldClients; c++) {
					assertThat(admitted.get(c)).as("admitted for old-%d in phase %d", c, phase)
						.isEqualTo((int) limitPerWindow);
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void clockMustNotBeNull() {
		assertThatNullPointerException().isThrownBy(() -> new InMemoryRateLimiter(null));
	}

	private static void assertSame(RateLimitDecision memory, ExactModel.Decision model) {
		LimitDecision got = memory.decisions().get(0);
		assertThat(List.of(got.allowed(), got.remaining(), got.retryAfterMs(), got.resetAfterMs(), got.moreAfterMs()))
			.as("%s vs model %s", got, model)
			.isEqualTo(List.of(model.allowed(), model.remaining(), model.retryAfterMs(), model.resetAfterMs(),
					model.moreAfterMs()));
	}

}
