package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

import dev.ratelimit.core.redis.JedisScriptExecutor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Settlements (docs/ALGORITHMS.md, "Settling a reservation") decided three ways on random traffic: by the Lua
 * scripts on a real Redis, by {@link InMemoryRateLimiter} and by {@link ExactModel}, written from the spec. Each
 * step is a request (a reservation of a provisional cost) or the settlement of an earlier admitted one, charging
 * more (into debt, up to many times the limit) or giving back part or all of it, some of them after the reserved
 * units' window has ended; every decision and every settlement must agree on all fields and on the time it was
 * taken at. Time never steps back here (the differential test covers that for decisions), and runs faster than the
 * servers' clocks, so no state expires before the model would forget it.
 */
class SettlementDifferentialTest {

	private static final long T0 = 1_791_860_000_000L;

	private final RedisRateLimiter redis = new RedisRateLimiter(new JedisScriptExecutor(SharedJedis.get()),
			"settle-" + UUID.randomUUID() + ":");

	private final InMemoryRateLimiter memory = new InMemoryRateLimiter();

	private final ExactModel model = new ExactModel();

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void settlementsAgreeWithTheExactModel(Algorithm algorithm) {
		for (long seed = 1; seed <= 6; seed++) {
			play(algorithm, seed);
		}
	}

	private void play(Algorithm algorithm, long seed) {
		SplittableRandom random = new SplittableRandom(seed * 31 + algorithm.ordinal());
		long limit = random.nextLong(3, 12);
		long window = new long[] { 40, 250, 1000 }[random.nextInt(3)];
		long capacity = (algorithm == Algorithm.TOKEN_BUCKET) ? limit + random.nextLong(0, 4) : limit;
		LimitDefinition definition = new LimitDefinition("budget", algorithm, limit, java.time.Duration.ofMillis(window),
				capacity);
		String client = "client-" + seed;
		List<LimitDecision> open = new ArrayList<>();
		long now = T0 + random.nextLong(0, window);
		for (int step = 0; step < 300; step++) {
			now += (random.nextInt(4) == 0) ? 0 : random.nextLong(0, window / 3 + 1);
			String context = algorithm + " seed " + seed + " step " + step + " at T0 + " + (now - T0) + " "
					+ this.model.describe(client, definition);
			if (!open.isEmpty() && random.nextInt(3) == 0) {
				LimitDecision reservation = open.remove(random.nextInt(open.size()));
				long reserved = reservation.request().cost();
				long actual = switch (random.nextInt(4)) {
					case 0 -> 0;
					case 1 -> random.nextLong(0, reserved + 1);
					case 2 -> reserved + random.nextLong(1, 3 * limit);
					default -> reserved;
				};
				Settlement settlement = Settlement.of(reservation, actual);
				ExactModel.Decision expected = this.model.settle(client, reservation.request(),
						reservation.decidedAtMs(), actual, now);
				LimitDecision fromRedis = at(this.redis, now).settle(client, List.of(settlement)).decisions().get(0);
				LimitDecision fromMemory = at(this.memory, now).settle(client, List.of(settlement)).decisions().get(0);
				String what = context + " settling " + reserved + " reserved at T0 + "
						+ (reservation.decidedAtMs() - T0) + " to " + actual;
				assertAgrees(fromRedis, expected, "redis " + what);
				assertThat(fromMemory).as("memory " + what).isEqualTo(fromRedis);
			}
			else {
				LimitRequest request = definition.request(random.nextLong(1, Math.min(limit, 4) + 1));
				ExactModel.Decision expected = this.model.decide(client, request, now);
				LimitDecision fromRedis = at(this.redis, now).tryAcquire(client, List.of(request)).decisions().get(0);
				LimitDecision fromMemory = at(this.memory, now).tryAcquire(client, List.of(request)).decisions().get(0);
				assertAgrees(fromRedis, expected, "redis " + context + " cost " + request.cost());
				assertThat(fromMemory).as("memory " + context).isEqualTo(fromRedis);
				if (fromRedis.allowed()) {
					open.add(fromRedis);
				}
			}
		}
	}

	private static void assertAgrees(LimitDecision actual, ExactModel.Decision expected, String what) {
		assertThat(new ExactModel.Decision(actual.allowed(), actual.remaining(), actual.retryAfterMs(),
				actual.resetAfterMs(), actual.moreAfterMs(), actual.decidedAtMs()))
			.as(what)
			.isEqualTo(expected);
	}

}
