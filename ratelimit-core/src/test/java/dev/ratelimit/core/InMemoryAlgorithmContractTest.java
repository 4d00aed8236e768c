package dev.ratelimit.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AlgorithmContract} on {@link InMemoryRateLimiter}, reading its state through its package-private test
 * hooks: {@link InMemoryRateLimiter#describe} (the state's fields), {@link InMemoryRateLimiter#deadline} and
 * {@link InMemoryRateLimiter#storedClients()}. Its clock is fixed at {@code T0}, so that only the explicit time of
 * the requests moves: the relative TTLs it counts on that clock never run out, and each is its deadline - T0.
 */
class InMemoryAlgorithmContractTest extends AlgorithmContract {

	private InMemoryRateLimiter memory;

	/** What the limiter holds for one limit of one client: its fields as text, and when it expires on the clock. */
	private record StoredState(String client, String state, long deadline) {
	}

	@Override
	RateLimiter newLimiter() {
		this.memory = new InMemoryRateLimiter(Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC));
		return this.memory;
	}

	@Override
	Object state(String client, LimitDefinition limit) {
		long deadline = this.memory.deadline(client, limit).orElseThrow();
		assertThat(deadline).as("deadline of %s for %s", limit.name(), client).isNotNegative();
		return new StoredState(client, this.memory.describe(client, limit), deadline);
	}

	@Override
	void assertSameState(Object before, Object after, String description) {
		assertThat(after).as("state %s", description).isEqualTo(before);
	}

	@Override
	void assertNothingStored() {
		assertThat(this.memory.storedClients()).isZero();
	}

	@Override
	void assertEveryStateExpires(List<String> clients, String decided, boolean admitted, LimitDefinition limit,
			long now, long maxTtlMs, String description) {
		for (String client : clients) {
			Optional<Long> stored = this.memory.deadline(client, limit);
			if (stored.isEmpty()) {
				continue;
			}
			long deadline = stored.get();
			assertThat(deadline - T0).as("TTL of %s after %s", client, description)
				.isNotNegative()
				.isLessThanOrEqualTo(maxTtlMs);
		}
		if (admitted) {
			// the state just written lives past the request (every TTL has the scripts' 1 s margin)
			assertThat(this.memory.deadline(decided, limit).orElseThrow() - T0).as("TTL of %s just written by %s", decided,
					description).isPositive();
		}
	}

}
