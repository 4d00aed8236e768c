package dev.ratelimit.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AlgorithmContract} on {@link InMemoryRateLimiter}, reading its state through its package-private test
 * hooks: {@link InMemoryRateLimiter#describe} (the state's fields), {@link InMemoryRateLimiter#expiresAt} and
 * {@link InMemoryRateLimiter#storedClients()}. Its clock is fixed, so that only the explicit time of the requests
 * moves (the relative TTLs it also counts on its clock never run out).
 */
class InMemoryAlgorithmContractTest extends AlgorithmContract {

	private InMemoryRateLimiter memory;

	/** What the limiter holds for one limit of one client: its fields as text, and when it expires. */
	private record StoredState(String client, String state, long expiresAt) {
	}

	@Override
	RateLimiter newLimiter() {
		this.memory = new InMemoryRateLimiter(Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC));
		return this.memory;
	}

	@Override
	Object state(String client, LimitDefinition limit) {
		long expiresAt = this.memory.expiresAt(client, limit);
		assertThat(expiresAt).as("expiresAt of %s for %s", limit.name(), client).isNotNegative();
		return new StoredState(client, this.memory.describe(client, limit), expiresAt);
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
			long expiresAt = this.memory.expiresAt(client, limit);
			if (expiresAt == -1) {
				continue;
			}
			assertThat(expiresAt).as("expiresAt of %s after %s", client, description)
				.isNotNegative()
				.isLessThanOrEqualTo(now + maxTtlMs);
		}
		if (admitted) {
			// the state just written lives past the request (every TTL has the scripts' 1 s margin)
			assertThat(this.memory.expiresAt(decided, limit)).as("expiresAt of %s just written by %s", decided,
					description).isGreaterThan(now);
		}
	}

}
