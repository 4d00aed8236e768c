package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimitUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

import static dev.ratelimit.spring.enforce.Denials.denied;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one policy of a wait for a permit, which the blocking, CompletableFuture and Reactor waits follow; and the
 * waits for a lease, woken by the releases of an in-memory limiter (the Redis announcements are the core's, tested
 * there, and the whole path in ConcurrencyLimitIntegrationTests).
 */
class PermitWaitTests {

	private static final LimitDefinition EXPORTS = LimitDefinition.of("exports", Algorithm.CONCURRENCY, 1,
			Duration.ofMinutes(1));

	private static final LimitDefinition API = LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 1,
			Duration.ofMinutes(1));

	private final LimitedRequest request = new BackgroundCall();

	private final InMemoryRateLimiter limiter = new InMemoryRateLimiter();

	private final LeaseWaits leases = new LeaseWaits(this.limiter.releases());

	private final List<PermitWait> begun = new ArrayList<>();

	@AfterEach
	void endTheWaits() {
		this.begun.forEach((wait) -> wait.done(null));
		this.leases.close();
	}

	@Test
	void aDenialIsWaitedOutForItsRetryAfter() throws Exception {
		assertThat(wait(Duration.ofSeconds(10), new Reservation()).pause(denied(1))).succeedsWithin(Duration.ofSeconds(10))
			.isEqualTo(true);
		CompletableFuture<Boolean> longer = wait(Duration.ofSeconds(10), new Reservation()).pause(denied(5000));
		assertThat(longer).isNotDone();
		longer.cancel(false);
	}

	@Test
	void aDenialWrappedByACompletionStageIsWaitedOutToo() {
		assertThat(wait(Duration.ofSeconds(10), new Reservation()).pause(new CompletionException(denied(1))))
			.succeedsWithin(Duration.ofSeconds(10))
			.isEqualTo(true);
	}

	@Test
	void aWaitThatWouldEndAfterMaxWaitGivesUp() {
		assertThat(wait(Duration.ofSeconds(1), new Reservation()).pause(denied(60_000))).isNull();
		assertThat(wait(Duration.ZERO, new Reservation()).pause(denied(1))).isNull();
	}

	@Test
	void aCostThatNeverFitsAndOtherFailuresGiveUpAtOnce() {
		PermitWait wait = wait(Duration.ofHours(1), new Reservation());
		assertThat(wait.pause(denied(RateLimitExceededException.NEVER))).isNull();
		assertThat(wait.pause(new RateLimitUnavailableException(ProblemDetail.forStatus(HttpStatus.SERVICE_UNAVAILABLE),
				new HttpHeaders()))).isNull();
		assertThat(wait.pause(new IllegalStateException("Redis"))).isNull();
	}

	@Test
	void eachLaterAttemptHasADeadlineOfItsOwnAndTheRequestsOtherAttributes() {
		PermitWait wait = wait(Duration.ofSeconds(10), new Reservation());
		assertThat(wait.firstAttempt()).isSameAs(this.request);
		long first = RequestDeadline.of(this.request, TimeUnit.SECONDS.toNanos(1));
		this.request.setAttribute("other", "kept");
		LimitedRequest next = wait.nextAttempt();
		long second = RequestDeadline.of(next, TimeUnit.HOURS.toNanos(1));
		assertThat(second - first).isGreaterThan(TimeUnit.MINUTES.toNanos(59));
		assertThat(RequestDeadline.of(this.request, 0)).isEqualTo(first);
		assertThat(next.getAttribute("other")).isEqualTo("kept");
	}

	@Test
	void callersDeniedALeaseAreWokenOnePerReleaseLongestWaitingFirst() {
		LimitDecision held = acquire("held");
		List<CompletableFuture<Boolean>> pauses = new ArrayList<>();
		List<PermitWait> waits = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			PermitWait wait = wait(Duration.ofMinutes(5), new Reservation());
			waits.add(wait);
			// the first pause of a call decides again at once: a release may have come before it listened
			assertThat(deniedALease(wait, "caller-" + i)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
			wait.nextAttempt();
			pauses.add(deniedALease(wait, "caller-" + i));
		}
		assertThat(pauses).noneMatch(CompletableFuture::isDone);

		release(held);
		assertThat(pauses.get(0)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		// the first caller decides again: a caller elsewhere took the lease first, so it waits again in its place
		waits.get(0).nextAttempt();
		LimitDecision elsewhere = acquire("elsewhere");
		CompletableFuture<Boolean> again = deniedALease(waits.get(0), "caller-0");
		release(elsewhere);
		assertThat(again).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		waits.get(0).nextAttempt();
		LimitDecision first = acquire("caller-0");

		release(first);
		assertThat(pauses.get(1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(pauses.get(2)).as("one caller woken per release").isNotDone();
	}

	@Test
	void aReleaseHeardWhileTheAttemptWasUnderWayEndsThePauseAtOnce() {
		LimitDecision held = acquire("held");
		PermitWait wait = wait(Duration.ofMinutes(5), new Reservation());
		assertThat(deniedALease(wait, "caller")).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		wait.nextAttempt();
		RateLimitDecision denied = this.limiter.tryAcquire("client", List.of(EXPORTS.request().withLease("caller")));
		// given back after the attempt was sent, heard before its denial was read
		release(held);
		acquire("other");
		assertThat(pauseAfter(wait, denied)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
	}

	@Test
	void aCallerCancelledWhileItWaitsLeavesTheReleaseToTheNext() {
		LimitDecision held = acquire("held");
		PermitWait cancelled = wait(Duration.ofMinutes(5), new Reservation());
		PermitWait next = wait(Duration.ofMinutes(5), new Reservation());
		CompletableFuture<Boolean> dropped = listening(cancelled, "first");
		CompletableFuture<Boolean> woken = listening(next, "second");
		dropped.cancel(false);
		cancelled.done(new CancellationException());

		release(held);
		assertThat(woken).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
	}

	@Test
	void aWaitForALeaseDecidesAgainAtTheEarliestExpiryAndGivesUpAtItsMaxWait() throws Exception {
		LimitDefinition brief = LimitDefinition.of("brief", Algorithm.CONCURRENCY, 1, Duration.ofMillis(200));
		this.limiter.tryAcquire("client", List.of(brief.request().withLease("held")));
		Reservation held = new Reservation();
		PermitWait expiring = wait(Duration.ofMinutes(5), held);
		noteDenial(held, this.limiter.tryAcquire("client", List.of(brief.request().withLease("caller"))));
		assertThat(expiring.pause(denied(1000))).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);

		acquire("held");
		PermitWait brieflyWaiting = wait(Duration.ofMillis(200), new Reservation());
		assertThat(deniedALease(brieflyWaiting, "caller")).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		brieflyWaiting.nextAttempt();
		RateLimitDecision again = this.limiter.tryAcquire("client", List.of(EXPORTS.request().withLease("caller")));
		noteDenial(brieflyWaiting.held(), again);
		CompletableFuture<Boolean> last = brieflyWaiting.pause(denied(ConcurrencyHint.HINT_MS));
		// it gives up: at once when its max wait had passed before this pause (a loaded machine), else when it passes
		assertThat((last != null) ? last.get(10, TimeUnit.SECONDS) : Boolean.FALSE).as("the max wait passed").isFalse();
	}

	@Test
	void aDenialByARateLimitTooWaitsItsRetryAfter() {
		acquire("held");
		this.limiter.tryAcquire("client", List.of(API.request()));
		Reservation held = new Reservation();
		PermitWait wait = wait(Duration.ofSeconds(1), held);
		noteDenial(held,
				this.limiter.tryAcquire("client", List.of(EXPORTS.request().withLease("caller"), API.request())));
		// a minute's window: past the max wait
		assertThat(wait.pause(denied(60_000))).isNull();
	}

	@Test
	void withoutAnnouncementsACallerRetriesAfterTheHint() {
		acquire("held");
		Reservation held = new Reservation();
		PermitWait wait = new PermitWait(this.request, List.of(), Duration.ofSeconds(10), held, new LeaseWaits(null),
				new PermitLines(), DecisionObservations.NONE);
		noteDenial(held, this.limiter.tryAcquire("client", List.of(EXPORTS.request().withLease("caller"))));
		assertThat(wait.pause(denied(ConcurrencyHint.HINT_MS))).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
	}

	/** A wait whose first pause has passed: it listens, and its next pause waits for a release. */
	private CompletableFuture<Boolean> listening(PermitWait wait, String lease) {
		assertThat(deniedALease(wait, lease)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		wait.nextAttempt();
		return deniedALease(wait, lease);
	}

	/** {@code wait}'s attempt denied by EXPORTS alone, and its pause. */
	private CompletableFuture<Boolean> deniedALease(PermitWait wait, String lease) {
		RateLimitDecision decision = this.limiter.tryAcquire("client", List.of(EXPORTS.request().withLease(lease)));
		assertThat(decision.allowed()).isFalse();
		return pauseAfter(wait, decision);
	}

	private CompletableFuture<Boolean> pauseAfter(PermitWait wait, RateLimitDecision denial) {
		noteDenial(wait.held(), denial);
		CompletableFuture<Boolean> pause = wait.pause(denied(ConcurrencyHint.HINT_MS));
		assertThat(pause).isNotNull();
		return pause;
	}

	private LimitDecision acquire(String lease) {
		LimitDecision decision = this.limiter.tryAcquire("client", List.of(EXPORTS.request().withLease(lease)))
			.decisions()
			.get(0);
		assertThat(decision.allowed()).isTrue();
		return decision;
	}

	private void release(LimitDecision lease) {
		this.limiter.settle("client", List.of(Settlement.release(lease.request())));
	}

	private PermitWait wait(Duration maxWait, Reservation held) {
		PermitWait wait = new PermitWait(this.request, List.of(), maxWait, held, this.leases, new PermitLines(),
				DecisionObservations.NONE);
		this.begun.add(wait);
		return wait;
	}

	/** {@code decision}, a denial by Redis at "client", noted in {@code held} as the enforcer notes it. */
	private static void noteDenial(Reservation held, RateLimitDecision decision) {
		held.waits().denied("client", decision.decisions().stream().map(LimitDecision::request).toList(), decision, true);
	}

}
