package dev.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.core.Times.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The concurrency limit of {@code docs/ALGORITHMS.md} ("Concurrency"), written once and run against every backend:
 * {@link RedisConcurrencyLimitTest} (concurrency.lua on a real Redis) and {@link InMemoryConcurrencyLimitTest}, with
 * explicit time. A lease time of 10 s throughout: leases taken at {@code T0} expire at {@code T0 + 10 s}.
 */
abstract class ConcurrencyLimitContract {

	static final long T0 = 1_791_860_000_000L;

	static final LimitDefinition EXPORTS = LimitDefinition.of("exports", Algorithm.CONCURRENCY, 2,
			Duration.ofSeconds(10));

	RateLimiter limiter;

	abstract RateLimiter newLimiter();

	/** The state's remaining time to live in ms as the backend counts it, or -2 when there is none. */
	abstract long ttlMs(String client, LimitDefinition limit);

	/** The announcements of {@link #limiter}'s releases; closed by the test. */
	abstract LeaseReleases releases();

	@BeforeEach
	void newLimiterForTheTest() {
		this.limiter = newLimiter();
	}

	@Test
	void admitsLimitLeasesAtOnceAndDeniesTheNextUntilTheEarliestExpiry() {
		LimitDecision first = acquire("client", EXPORTS, "a", T0);
		LimitDecision second = acquire("client", EXPORTS, "b", T0 + 1000);
		LimitDecision third = acquire("client", EXPORTS, "c", T0 + 2000);

		assertThat(first.allowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(1);
		assertThat(second.allowed()).isTrue();
		assertThat(second.remaining()).isZero();
		// a lease taken at T0 expires at T0 + 10 s: 8 s after T0 + 2 s, if its holder never gives it back
		assertThat(third.allowed()).isFalse();
		assertThat(third.retryAfterMs()).hasValue(8000);
		assertThat(third.remaining()).isZero();
		assertThat(third.moreAfterMs()).isEqualTo(8000);
		assertThat(third.resetAfterMs()).isEqualTo(9000);
	}

	@Test
	void aLeaseGivenBackAdmitsTheNextCall() {
		LimitDecision a = acquire("client", EXPORTS, "a", T0);
		acquire("client", EXPORTS, "b", T0);
		assertThat(acquire("client", EXPORTS, "c", T0 + 5).allowed()).isFalse();

		LimitDecision released = release("client", a, T0 + 10);

		assertThat(released.remaining()).isEqualTo(1);
		assertThat(acquire("client", EXPORTS, "c", T0 + 20).allowed()).isTrue();
		assertThat(acquire("client", EXPORTS, "d", T0 + 30).allowed()).isFalse();
	}

	@Test
	void givingBackALeaseTwiceOrOneNeverHeldGivesNothingMore() {
		LimitDecision a = acquire("client", EXPORTS, "a", T0);
		acquire("client", EXPORTS, "b", T0);
		release("client", a, T0 + 1);
		assertThat(release("client", a, T0 + 2).remaining()).isEqualTo(1);
		LimitRequest stranger = EXPORTS.request().withLease("never-held");
		assertThat(at(this.limiter, T0 + 3).settle("client", List.of(new Settlement(stranger, T0, 0)))
			.decisions()
			.get(0)
			.remaining()).isEqualTo(1);
		acquire("client", EXPORTS, "c", T0 + 4);
		assertThat(acquire("client", EXPORTS, "d", T0 + 5).allowed()).isFalse();
	}

	@Test
	void theSameLeaseAgainIsOneLeaseRenewed() {
		acquire("client", EXPORTS, "a", T0);
		acquire("client", EXPORTS, "b", T0 + 1000);
		// the same acquire sent again (a retry, or a renewal of a running call): admitted, counted once, and its
		// expiry moves to 10 s after the renewal
		LimitDecision renewed = acquire("client", EXPORTS, "a", T0 + 4000);
		assertThat(renewed.allowed()).isTrue();
		assertThat(renewed.remaining()).isZero();

		LimitDecision denied = acquire("client", EXPORTS, "c", T0 + 10_500);
		// "a" now expires at T0 + 14 s, "b" at T0 + 11 s
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.retryAfterMs()).hasValue(500);
		assertThat(denied.resetAfterMs()).isEqualTo(3500);
	}

	@Test
	void aLeaseNeverGivenBackExpiresAfterTheLeaseTime() {
		acquire("client", EXPORTS, "a", T0);
		acquire("client", EXPORTS, "b", T0 + 3000);

		assertThat(acquire("client", EXPORTS, "c", T0 + 9999).allowed()).isFalse();
		LimitDecision afterExpiry = acquire("client", EXPORTS, "c", T0 + 10_000);
		assertThat(afterExpiry.allowed()).isTrue();
		assertThat(afterExpiry.remaining()).isZero();
		assertThat(acquire("client", EXPORTS, "d", T0 + 10_001).retryAfterMs()).hasValue(2999);
	}

	@Test
	void aDeniedCallTakesNothingAndExtendsNoLease() {
		acquire("client", EXPORTS, "a", T0);
		acquire("client", EXPORTS, "b", T0);
		for (int i = 0; i < 5; i++) {
			assertThat(acquire("client", EXPORTS, "x" + i, T0 + 5000).allowed()).isFalse();
		}
		assertThat(acquire("client", EXPORTS, "c", T0 + 10_000).allowed()).isTrue();
		assertThat(acquire("client", EXPORTS, "d", T0 + 10_000).allowed()).isTrue();
	}

	@Test
	void withRateLimitsAllOrNothing() {
		LimitDefinition perSecond = LimitDefinition.of("per-second", Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(1));
		LimitDefinition roomy = LimitDefinition.of("roomy", Algorithm.TOKEN_BUCKET, 100, Duration.ofSeconds(1));
		// the concurrency limit admits, the rate limit denies: no lease is taken
		assertThat(decide("client", T0, perSecond.request(), EXPORTS.request().withLease("a")).allowed()).isTrue();
		assertThat(decide("client", T0 + 1, perSecond.request(), EXPORTS.request().withLease("b")).allowed()).isFalse();
		acquire("client", EXPORTS, "c", T0 + 2);
		// now the concurrency limit denies: the rate limit consumes nothing
		RateLimitDecision denied = decide("client", T0 + 3, roomy.request(50), EXPORTS.request().withLease("d"));
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.decisions().get(0).allowed()).isTrue();
		assertThat(at(this.limiter, T0 + 3).peek("client", roomy.request()).remaining()).isEqualTo(100);
	}

	@Test
	void aShadowConcurrencyLimitTakesALeaseWhenItAdmitsAndBlocksNothing() {
		LimitRequest shadow = EXPORTS.request().withShadow(true);
		assertThat(decide("client", T0, shadow.withLease("a")).allowed()).isTrue();
		assertThat(decide("client", T0, shadow.withLease("b")).allowed()).isTrue();
		RateLimitDecision third = decide("client", T0, shadow.withLease("c"));
		assertThat(third.allowed()).isTrue();
		assertThat(third.shadowDenied()).hasSize(1);
		// the shadow denial took nothing: a lease given back makes room for exactly one more
		release("client", decide("client", T0, shadow.withLease("a")).decisions().get(0), T0 + 1);
		assertThat(decide("client", T0 + 2, EXPORTS.request().withLease("d")).allowed()).isTrue();
		assertThat(decide("client", T0 + 2, EXPORTS.request().withLease("e")).allowed()).isFalse();
	}

	@Test
	void clientsAndNamesHaveLeasesOfTheirOwn() {
		LimitDefinition uploads = LimitDefinition.of("uploads", Algorithm.CONCURRENCY, 1, Duration.ofSeconds(10));
		acquire("alice", EXPORTS, "a", T0);
		acquire("alice", EXPORTS, "b", T0);
		assertThat(acquire("bob", EXPORTS, "a", T0).allowed()).isTrue();
		assertThat(acquire("alice", uploads, "c", T0).allowed()).isTrue();
		assertThat(acquire("alice", uploads, "d", T0).allowed()).isFalse();
	}

	@Test
	void anotherLeaseTimeKeepsTheLeasesHeld() {
		acquire("client", EXPORTS, "a", T0);
		acquire("client", EXPORTS, "b", T0);
		LimitDefinition longer = LimitDefinition.of("exports", Algorithm.CONCURRENCY, 2, Duration.ofMinutes(1));
		assertThat(acquire("client", longer, "c", T0 + 1).allowed()).isFalse();
		LimitDefinition more = LimitDefinition.of("exports", Algorithm.CONCURRENCY, 3, Duration.ofMinutes(1));
		LimitDecision third = acquire("client", more, "c", T0 + 2);
		assertThat(third.allowed()).isTrue();
		assertThat(third.remaining()).isZero();
	}

	@Test
	void aLoweredLimitLetsHeldLeasesFinish() {
		acquire("client", EXPORTS, "a", T0);
		acquire("client", EXPORTS, "b", T0);
		LimitDefinition one = LimitDefinition.of("exports", Algorithm.CONCURRENCY, 1, Duration.ofSeconds(10));
		LimitDecision denied = acquire("client", one, "c", T0 + 1);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.remaining()).isZero();
		// held leases still renew, and give back as usual
		assertThat(acquire("client", one, "a", T0 + 2).allowed()).isTrue();
		release("client", acquire("client", one, "b", T0 + 3), T0 + 4);
		assertThat(acquire("client", one, "c", T0 + 5).allowed()).isFalse();
		release("client", acquire("client", one, "a", T0 + 6), T0 + 7);
		assertThat(acquire("client", one, "c", T0 + 8).allowed()).isTrue();
	}

	@Test
	void peekReadsTheLeasesWithoutTakingOne() {
		acquire("client", EXPORTS, "a", T0);
		LimitDecision peeked = at(this.limiter, T0 + 2000).peek("client", EXPORTS.request());
		assertThat(peeked.allowed()).isTrue();
		assertThat(peeked.remaining()).isEqualTo(1);
		assertThat(peeked.moreAfterMs()).isEqualTo(8000);
		acquire("client", EXPORTS, "b", T0 + 2000);
		assertThat(at(this.limiter, T0 + 2000).peek("client", EXPORTS.request()).allowed()).isFalse();
		assertThat(at(this.limiter, T0).peek("nobody", EXPORTS.request()).remaining()).isEqualTo(2);
		assertThat(ttlMs("nobody", EXPORTS)).isEqualTo(-2);
	}

	@Test
	void leasesListsTheHoldersSoonestExpiryFirstWithoutTakingOrSweeping() {
		acquire("client", EXPORTS, "lease-b", T0 + 1000);
		acquire("client", EXPORTS, "lease-a", T0);
		assertThat(at(this.limiter, T0 + 2000).leases("client", EXPORTS))
			.containsExactly(new HeldLease("lease-a", 8000), new HeldLease("lease-b", 9000));
		// "lease-a" has expired at T0 + 10 s: left out, and still counted by nothing
		assertThat(at(this.limiter, T0 + 10_000).leases("client", EXPORTS))
			.containsExactly(new HeldLease("lease-b", 1000));
		assertThat(at(this.limiter, T0).leases("nobody", EXPORTS)).isEmpty();
		// an operator gives one back by its id
		at(this.limiter, T0 + 3000).settle("client",
				List.of(Settlement.release(EXPORTS.request().withLease("lease-b"))));
		assertThat(at(this.limiter, T0 + 3000).leases("client", EXPORTS))
			.containsExactly(new HeldLease("lease-a", 7000));
		LimitDefinition rate = LimitDefinition.of("rate", Algorithm.TOKEN_BUCKET, 2, Duration.ofSeconds(1));
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.leases("client", rate))
			.withMessageContaining("holds no leases");
	}

	@Test
	void resetGivesEveryLeaseBack() {
		acquire("client", EXPORTS, "a", T0);
		acquire("client", EXPORTS, "b", T0);
		assertThat(this.limiter.reset("client", List.of(EXPORTS))).isEqualTo(1);
		assertThat(acquire("client", EXPORTS, "c", T0 + 1).remaining()).isEqualTo(1);
	}

	@Test
	void theStateLivesUntilItsLatestLeaseExpiresAndGoesWithItsLastLease() {
		LimitDecision a = acquire("client", EXPORTS, "a", T0);
		// explicit time T0 is the backend's own "now" here: the TTL is the lease time plus the 1 s margin
		assertThat(ttlMs("client", EXPORTS)).isBetween(1L, 11_000L);
		LimitDecision b = acquire("client", EXPORTS, "b", T0);
		release("client", a, T0 + 1);
		assertThat(ttlMs("client", EXPORTS)).isPositive();
		release("client", b, T0 + 2);
		assertThat(ttlMs("client", EXPORTS)).isEqualTo(-2);
	}

	@Test
	void aCallTakesOneLeaseWithAnIdOfItsCaller() {
		assertThatThrownBy(() -> EXPORTS.request(2)).isInstanceOf(InvalidLimitException.class)
			.hasMessageContaining("cost of concurrency limit 'exports' must be 1");
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire("client", EXPORTS.request()))
			.withMessageContaining("needs the call's lease id");
		assertThatIllegalArgumentException().isThrownBy(() -> EXPORTS.request().withLease("with space"));
		assertThatIllegalArgumentException().isThrownBy(() -> Settlement.release(EXPORTS.request()))
			.withMessageContaining("holds no lease to give back");
		LimitDefinition rate = LimitDefinition.of("rate", Algorithm.TOKEN_BUCKET, 2, Duration.ofSeconds(1));
		assertThat(rate.request().withLease("a")).isEqualTo(rate.request());
		assertThat(LimitRequest.newLeaseId()).hasSize(22).isNotEqualTo(LimitRequest.newLeaseId());
	}

	/** Random acquires, renewals, releases and time steps decide as an exact model of the leases does. */
	@Test
	void randomTrafficDecidesAsTheModel() {
		SplittableRandom random = new SplittableRandom(27);
		LimitDefinition limit = LimitDefinition.of("random", Algorithm.CONCURRENCY, 3, Duration.ofMillis(500));
		java.util.Map<String, Long> model = new java.util.HashMap<>();
		List<LimitDecision> held = new ArrayList<>();
		long now = T0;
		for (int i = 0; i < 400; i++) {
			now += random.nextInt(60);
			long at = now;
			model.values().removeIf((expiry) -> expiry <= at);
			if (!held.isEmpty() && random.nextInt(3) == 0) {
				LimitDecision lease = held.remove(random.nextInt(held.size()));
				model.remove(lease.request().lease());
				assertThat(release("client", lease, now).remaining()).as("release %d", i)
					.isEqualTo(3 - model.size());
				continue;
			}
			String lease = (!held.isEmpty() && random.nextInt(4) == 0)
					? held.get(random.nextInt(held.size())).request().lease() : "lease-" + i;
			boolean expected = model.containsKey(lease) || model.size() < 3;
			LimitDecision decision = acquire("client", limit, lease, now);
			assertThat(decision.allowed()).as("acquire %d of %s with %s held", i, lease, model).isEqualTo(expected);
			if (expected) {
				boolean renewal = model.containsKey(lease);
				model.put(lease, now + 500);
				if (!renewal) {
					held.add(decision);
				}
			}
			else {
				long earliest = model.values().stream().mapToLong(Long::longValue).min().orElseThrow();
				assertThat(decision.retryAfterMs()).as("acquire %d", i).hasValue(earliest - now);
			}
		}
	}

	@Test
	void aReleaseByAFullLimitIsAnnouncedOnTheLimitsChannelAndNoOtherIs() throws Exception {
		Announcements announced = new Announcements();
		try (LeaseReleases releases = releases()) {
			releases.listen(announced).get(10, TimeUnit.SECONDS);
			assertThat(announced.subscriptions).hasValue(1);
			LimitDecision a = acquire("client", EXPORTS, "a", T0);
			LimitDecision b = acquire("client", EXPORTS, "b", T0 + 1);
			release("client", a, T0 + 2);
			// one lease of two held, then none: nobody can be waiting
			release("client", b, T0 + 3);
			release("client", b, T0 + 4);
			// full again, and one lease expired by the time the other is given back: the limit was not full then
			LimitDecision c = acquire("client", EXPORTS, "c", T0 + 5);
			acquire("client", EXPORTS, "d", T0 + 6);
			release("client", c, T0 + 10_006);
			// another client's release of a full limit, announced after the first
			LimitDecision e = acquire("other", EXPORTS, "e", T0);
			acquire("other", EXPORTS, "f", T0);
			release("other", e, T0 + 1);

			assertThat(announced.next()).isEqualTo(releases.channel("client", EXPORTS));
			assertThat(announced.next()).isEqualTo(releases.channel("other", EXPORTS));
			assertThat(releases.channel("client", EXPORTS)).isNotEqualTo(releases.channel("other", EXPORTS));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> releases.channel("client", LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1))));
		}
	}

	/** What a listener was told: the channels in order, and how many subscriptions were made. */
	static final class Announcements implements LeaseReleases.Listener {

		final BlockingQueue<String> channels = new LinkedBlockingQueue<>();

		final java.util.concurrent.atomic.AtomicInteger subscriptions = new java.util.concurrent.atomic.AtomicInteger();

		@Override
		public void released(String channel) {
			this.channels.add(channel);
		}

		@Override
		public void subscribed() {
			this.subscriptions.incrementAndGet();
		}

		/** The next channel announced, waiting up to 10 s for it (pub/sub delivers after the release returns). */
		String next() throws InterruptedException {
			String channel = this.channels.poll(10, TimeUnit.SECONDS);
			assertThat(channel).as("an announcement within 10 s").isNotNull();
			return channel;
		}

	}

	LimitDecision acquire(String client, LimitDefinition limit, String lease, long now) {
		return decide(client, now, limit.request().withLease(lease)).decisions().get(0);
	}

	RateLimitDecision decide(String client, long now, LimitRequest... requests) {
		return at(this.limiter, now).tryAcquire(client, List.of(requests));
	}

	LimitDecision release(String client, LimitDecision lease, long now) {
		return at(this.limiter, now).settle(client, List.of(Settlement.of(lease, 0))).decisions().get(0);
	}

}
