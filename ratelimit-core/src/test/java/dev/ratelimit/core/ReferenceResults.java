package dev.ratelimit.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reference tables of {@code docs/ALGORITHMS.md}, reproduced by every backend: the real scripts on a real Redis
 * ({@link RedisReferenceResultsTest}) and {@link InMemoryReferenceResultsTest}. Limit 10 per 1 s, cost 1, explicit
 * time from {@code T0 = 1791860000000}.
 */
abstract class ReferenceResults {

	static final long T0 = 1_791_860_000_000L;

	/** A limiter with no state, its keys (if any) under {@code prefix}. */
	abstract RateLimiter newLimiter(String prefix);

	@ParameterizedTest
	@CsvSource({ "FIXED_WINDOW, 10, 10", "SLIDING_LOG, 10, 0", "SLIDING_WINDOW_COUNTER, 10, 1", "TOKEN_BUCKET, 10, 0" })
	void boundaryBurst(Algorithm algorithm, int admittedBefore, int admittedAfter) {
		RateLimiter limiter = newLimiter("burst:");
		LimitDefinition limit = LimitDefinition.of("burst-" + algorithm, algorithm, 10, Duration.ofSeconds(1));
		assertThat(admitted(limiter, limit, 15, T0 + 990)).isEqualTo(admittedBefore);
		assertThat(admitted(limiter, limit, 15, T0 + 1010)).isEqualTo(admittedAfter);
	}

	@ParameterizedTest
	@CsvSource({ "FIXED_WINDOW, 100, 17", "SLIDING_LOG, 93, 10", "SLIDING_WINDOW_COUNTER, 99, 12", "TOKEN_BUCKET, 108, 19" })
	void steadyOverload(Algorithm algorithm, int admittedTotal, int mostInOneSecond) throws IOException {
		RateLimiter limiter = newLimiter("steady:");
		LimitDefinition limit = LimitDefinition.of("steady-" + algorithm, algorithm, 10, Duration.ofSeconds(1));
		List<Long> admitted = new ArrayList<>();
		for (long offset : fixtureOffsets()) {
			if (at(limiter, T0 + offset).tryAcquire("client", limit).allowed()) {
				admitted.add(T0 + offset);
			}
		}
		assertThat(admitted).hasSize(admittedTotal);
		assertThat(mostInAnySpan(admitted)).isEqualTo(mostInOneSecond);
	}

	/** The 200 offsets in ms of the steady-overload fixture, sorted, some repeated. */
	static long[] fixtureOffsets() throws IOException {
		try (InputStream in = ReferenceResults.class.getResourceAsStream("/steady-overload-offsets-ms.txt")) {
			long[] offsets = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
				.map(String::trim)
				.filter((line) -> !line.isEmpty())
				.mapToLong(Long::parseLong)
				.toArray();
			assertThat(offsets).hasSize(200);
			return offsets;
		}
	}

	/** Most admitted in [s, s + 1000) for s = T0, T0 + 5, ..., T0 + 8995, as the spec defines the column. */
	static int mostInAnySpan(List<Long> admitted) {
		int most = 0;
		for (long start = T0; start <= T0 + 8995; start += 5) {
			long from = start;
			int inSpan = (int) admitted.stream().filter((t) -> t >= from && t < from + 1000).count();
			most = Math.max(most, inSpan);
		}
		return most;
	}

	private static int admitted(RateLimiter limiter, LimitDefinition limit, int requests, long now) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			if (at(limiter, now).tryAcquire("client", limit).allowed()) {
				admitted++;
			}
		}
		return admitted;
	}

}
