package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.spring.enforce.Denials.denied;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lines of callers waiting for a permit of rate limits (PermitLines), through the waits that use them: one head
 * asks Redis, the others wait behind it in order and hand over as the head's admission says; the full path on Redis
 * is in WaitingCallersIntegrationTests.
 */
class PermitLinesTests {

	private static final LimitDefinition API = LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 10,
			Duration.ofSeconds(1));

	private static final LimitDefinition EXPORTS = LimitDefinition.of("exports", Algorithm.CONCURRENCY, 1,
			Duration.ofMinutes(1));

	private final PermitLines lines = new PermitLines();

	private final List<PermitWait> begun = new ArrayList<>();

	@AfterEach
	void endTheWaits() throws InterruptedException {
		this.begun.forEach((wait) -> wait.done(null));
		// a line closed by its last admission is removed when it opens (at most 1 s); any other at once
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.lines.size() > 0 && System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
		}
		assertThat(this.lines.size()).as("a line with no caller left is removed").isZero();
	}

	@Test
	void aLineWhoseCallersWereAllAdmittedStaysClosedUntilItsLastAdmissionsMoreAfter() {
		PermitWait first = wait(Duration.ofSeconds(30));
		assertThat(deniedByRedis(first, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		first.nextAttempt();
		admitted(first, 0, 800);
		long since = System.nanoTime();
		first.done(null);
		// no caller in the line, and no room for 800 ms: a call coming now waits in it rather than ask Redis
		PermitWait next = wait(Duration.ofSeconds(30));
		CompletableFuture<Boolean> turn = deniedInLine(next);
		assertThat(turn).isNotDone();
		assertThat(turn).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat((System.nanoTime() - since) / 1_000_000).isGreaterThanOrEqualTo(799);
	}

	@Test
	void aCallAnsweredByAClosedLineIsToldToRetryNoSoonerThanTheLineOpens() {
		PermitWait first = wait(Duration.ofSeconds(30));
		assertThat(deniedByRedis(first, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		first.nextAttempt();
		long admittedAt = System.nanoTime();
		admitted(first, 0, 800);
		first.done(null);
		// the line's last denial said 1 ms and is older now; the line asks again only when its last admission's
		// more-after has passed, and a caller that gives up where it is answered must not retry before then
		RateLimitDecision answer = wait(Duration.ofSeconds(30)).held().waits().behind("client", List.of(API.request()));
		long elapsedMs = (System.nanoTime() - admittedAt) / 1_000_000;
		if (answer == null) {
			assertThat(elapsedMs).as("no answer from the line only once it is open again").isGreaterThanOrEqualTo(800);
			return;
		}
		assertThat(answer.decisions().get(0).retryAfterMs().getAsLong()).as("ms after %d ms", elapsedMs)
			.isBetween(800 - elapsedMs - 1, 801L);
	}

	@Test
	void aClosedLineOpensWhenTheLimitersClockPassesItsLastAdmissionsMoreAfter() {
		AtomicLong limiterNanos = new AtomicLong(TimeUnit.DAYS.toNanos(20_000));
		PermitLines clocked = new PermitLines(limiterNanos::get);
		PermitWait first = wait(Duration.ofSeconds(30), clocked);
		assertThat(deniedByRedis(first, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		first.nextAttempt();
		admitted(first, 0, 800);
		first.done(null);
		assertThat(wait(Duration.ofSeconds(30), clocked).held().waits().behind("client", List.of(API.request())))
			.as("closed: answered by the line").isNotNull();

		// a test moves the clock the limiter decides by: the limits have room again, whatever the real time
		limiterNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(800));
		assertThat(wait(Duration.ofSeconds(30), clocked).held().waits().behind("client", List.of(API.request())))
			.as("open: the caller asks").isNull();
	}

	@Test
	void aResetOpensEveryLineForgetsItsLastDenialAndLetsItsHeadAskAtOnce() {
		PermitWait first = wait(Duration.ofSeconds(30));
		assertThat(deniedByRedis(first, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		first.nextAttempt();
		admitted(first, 0, 800);
		first.done(null);
		assertThat(wait(Duration.ofSeconds(30)).held().waits().behind("client", List.of(API.request()))).isNotNull();
		this.lines.reset();
		assertThat(wait(Duration.ofSeconds(30)).held().waits().behind("client", List.of(API.request())))
			.as("after the reset").isNull();

		PermitWait head = wait(Duration.ofSeconds(30));
		CompletableFuture<Boolean> turn = deniedByRedis(head, 20_000, 1);
		assertThat(turn).as("waiting out 20 s").isNotDone();
		this.lines.reset();
		assertThat(turn).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
	}

	@Test
	void theFirstCallerDeniedWaitsItsRetryAfterAndTheOthersWaitBehindItInOrder() {
		PermitWait head = wait(Duration.ofSeconds(30));
		PermitWait second = wait(Duration.ofSeconds(30));
		PermitWait third = wait(Duration.ofSeconds(30));
		assertThat(deniedByRedis(head, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		head.nextAttempt();
		CompletableFuture<Boolean> secondsTurn = deniedByRedis(second, 1, 1);
		CompletableFuture<Boolean> thirdsTurn = deniedByRedis(third, 1, 1);
		assertThat(secondsTurn).as("behind the head, not at its own retry-after").isNotDone();
		assertThat(thirdsTurn).isNotDone();

		// admitted with room for another: the next caller asks at once
		admitted(head, 1, 0);
		head.done(null);
		assertThat(secondsTurn).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(thirdsTurn).as("one caller at a time").isNotDone();
	}

	@Test
	void anAdmissionWithRoomForTwoMoreLetsTheNextTwoAskAtOnceAndOneDeniedAgainGoesBackToTheFront() {
		PermitWait head = wait(Duration.ofSeconds(30));
		List<PermitWait> behind = List.of(wait(Duration.ofSeconds(30)), wait(Duration.ofSeconds(30)),
				wait(Duration.ofSeconds(30)));
		assertThat(deniedByRedis(head, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		head.nextAttempt();
		List<CompletableFuture<Boolean>> turns = behind.stream().map((wait) -> deniedInLine(wait)).toList();
		admitted(head, 2, 0);
		head.done(null);
		assertThat(turns.get(0)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(turns.get(1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(turns.get(2)).isNotDone();

		// the first is denied (another instance was quicker) while the second asks: back to the front, behind it
		CompletableFuture<Boolean> again = deniedByRedis(behind.get(0), 1, 1);
		assertThat(again).isNotDone();
		admitted(behind.get(1), 0, 0);
		behind.get(1).done(null);
		assertThat(again).as("first in line again").succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(turns.get(2)).isNotDone();
	}

	@Test
	void theRoomAnAdmissionLeavesIsForTheCallersNotAlreadyAsking() {
		PermitWait head = wait(Duration.ofSeconds(30));
		List<PermitWait> behind = List.of(wait(Duration.ofSeconds(30)), wait(Duration.ofSeconds(30)),
				wait(Duration.ofSeconds(30)));
		assertThat(deniedByRedis(head, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		head.nextAttempt();
		List<CompletableFuture<Boolean>> turns = behind.stream().map((wait) -> deniedInLine(wait)).toList();
		admitted(head, 2, 0);
		head.done(null);
		assertThat(turns.get(1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		// the first admitted with room for one more: the second, asking now, takes it
		admitted(behind.get(0), 1, 0);
		behind.get(0).done(null);
		assertThat(turns.get(2)).isNotDone();
		admitted(behind.get(1), 0, 0);
		behind.get(1).done(null);
		assertThat(turns.get(2)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
	}

	@Test
	void aHeadAdmittedWithoutRoomHandsOverWhenTheLimitHasRoomAgain() {
		PermitWait head = wait(Duration.ofSeconds(30));
		PermitWait next = wait(Duration.ofSeconds(30));
		assertThat(deniedByRedis(head, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		head.nextAttempt();
		CompletableFuture<Boolean> turn = deniedByRedis(next, 1, 1);
		admitted(head, 0, 1500);
		long handedOver = System.nanoTime();
		head.done(null);
		assertThat(turn).as("the limit has no room for 1.5 s").isNotDone();
		assertThat(turn).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat((System.nanoTime() - handedOver) / 1_000_000).isGreaterThanOrEqualTo(1499);
	}

	@Test
	void aHeadThatGivesUpOrIsCancelledHandsOverAtOnce() {
		PermitWait head = wait(Duration.ofMinutes(10));
		PermitWait next = wait(Duration.ofMinutes(10));
		PermitWait last = wait(Duration.ofMinutes(10));
		CompletableFuture<Boolean> headsPause = deniedByRedis(head, 60_000, 1);
		CompletableFuture<Boolean> nextsTurn = deniedByRedis(next, 1, 1);
		CompletableFuture<Boolean> lastsTurn = deniedByRedis(last, 1, 1);
		headsPause.cancel(false);
		head.done(new CancellationException());
		assertThat(nextsTurn).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		next.done(denied(60_000));
		assertThat(lastsTurn).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
	}

	@Test
	void aCallWhoseLineHasAHeadIsAnsweredWithTheLinesLastDenialWithoutAskingRedis() {
		PermitWait head = wait(Duration.ofSeconds(30));
		deniedByRedis(head, 5_000, 1);
		PermitWait newcomer = wait(Duration.ofSeconds(30));
		RateLimitDecision answer = newcomer.held().waits().behind("client", List.of(API.request()));
		assertThat(answer).isNotNull();
		assertThat(answer.allowed()).isFalse();
		assertThat(answer.decisions().get(0).retryAfterMs().getAsLong()).isBetween(1L, 5_000L);
		assertThat(head.held().waits().behind("client", List.of(API.request()))).as("the head asks Redis").isNull();
		assertThat(newcomer.held().waits().behind("other", List.of(API.request()))).as("another client's line").isNull();
		assertThat(newcomer.held().waits().behind("client", List.of(API.request(5)))).as("another cost's line").isNull();
		assertThat(wait(Duration.ZERO).held().waits().behind("client", List.of(API.request()))).as("a call that cannot wait")
			.isNull();
	}

	@Test
	void aCallerBehindGivesUpAtOnceWhenTheHeadAsksAgainOnlyAfterItsMaxWait() {
		PermitWait head = wait(Duration.ofMinutes(10));
		deniedByRedis(head, 60_000, 1);
		PermitWait impatient = wait(Duration.ofSeconds(1));
		assertThat(deniedInLine(impatient)).as("the head asks again in a minute").isNull();
	}

	@Test
	void aCallerBehindGivesUpWhenItsMaxWaitPasses() {
		PermitWait head = wait(Duration.ofMinutes(10));
		assertThat(deniedByRedis(head, 1, 1)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		// the head is deciding again (and does not come back): the brief caller waits behind it, up to its max wait
		head.nextAttempt();
		PermitWait brief = wait(Duration.ofMillis(300));
		assertThat(deniedInLine(brief)).succeedsWithin(Duration.ofSeconds(10)).as("its max wait passed").isEqualTo(false);
	}

	@Test
	void aCheaperCallDoesNotWaitBehindACostlierOne() {
		PermitWait costly = wait(Duration.ofMinutes(10));
		deniedByRedis(costly, 60_000, 5);
		PermitWait cheap = wait(Duration.ofSeconds(30));
		assertThat(deniedByRedis(cheap, 1, 1)).as("a line of its own, at its own retry-after")
			.succeedsWithin(Duration.ofSeconds(10))
			.isEqualTo(true);
	}

	@Test
	void limitsWithAConcurrencyLimitWaitForALeaseNotInALine() {
		PermitWait wait = wait(Duration.ofSeconds(30));
		List<LimitRequest> limits = List.of(API.request(), EXPORTS.request().withLease("caller"));
		RateLimitDecision decision = new RateLimitDecision(List.of(LimitDecision.denied(limits.get(0), 100,
				new LimitDecision.Allowance(0, 100, 100)), LimitDecision.allowed(limits.get(1),
						new LimitDecision.Allowance(0, 60_000, 0))));
		wait.held().waits().denied("client", limits, decision, true);
		assertThat(wait.held().waits().takeRateDenial()).isNull();
	}

	/** {@code wait} denied by Redis at "client" for API at {@code cost}, and its pause. */
	private static CompletableFuture<Boolean> deniedByRedis(PermitWait wait, long retryAfterMs, int cost) {
		LimitRequest request = API.request(cost);
		RateLimitDecision denial = new RateLimitDecision(List.of(LimitDecision.denied(request, retryAfterMs,
				new LimitDecision.Allowance(0, 1000, retryAfterMs))));
		wait.held().waits().denied("client", List.of(request), denial, true);
		CompletableFuture<Boolean> pause = wait.pause(denied(retryAfterMs));
		assertThat(pause).isNotNull();
		return pause;
	}

	/** {@code wait} answered by its line, as the enforcer answers a call behind a head, and its pause. */
	private static CompletableFuture<Boolean> deniedInLine(PermitWait wait) {
		RateLimitDecision answer = wait.held().waits().behind("client", List.of(API.request()));
		assertThat(answer).isNotNull();
		wait.held().waits().denied("client", List.of(API.request()), answer, false);
		return wait.pause(denied(answer.decisions().get(0).retryAfterMs().getAsLong()));
	}

	/** {@code wait}'s attempt admitted with {@code remaining} units left, more after {@code moreAfterMs}. */
	private static void admitted(PermitWait wait, long remaining, long moreAfterMs) {
		wait.held().waits().admitted("client", new RateLimitDecision(List.of(LimitDecision.allowed(API.request(),
				new LimitDecision.Allowance(remaining, 1000, moreAfterMs)))));
	}

	private PermitWait wait(Duration maxWait) {
		return wait(maxWait, this.lines);
	}

	private PermitWait wait(Duration maxWait, PermitLines in) {
		PermitWait wait = new PermitWait(new BackgroundCall(), List.of(), maxWait, new Reservation(),
				new LeaseWaits(null), in, DecisionObservations.NONE);
		this.begun.add(wait);
		return wait;
	}

}
