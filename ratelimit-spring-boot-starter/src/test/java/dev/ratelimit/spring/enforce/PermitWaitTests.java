package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimitUnavailableException;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

import static org.assertj.core.api.Assertions.assertThat;

/** The one policy of a wait for a permit, which the blocking, CompletableFuture and Reactor waits follow. */
class PermitWaitTests {

	private final LimitedRequest request = new BackgroundCall();

	@Test
	void aDenialIsWaitedOutForItsRetryAfter() {
		PermitWait wait = PermitWait.of(this.request, Duration.ofSeconds(10));
		assertThat(wait.waitNanos(denied(250))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
	}

	@Test
	void aDenialWrappedByACompletionStageIsWaitedOutToo() {
		PermitWait wait = PermitWait.of(this.request, Duration.ofSeconds(10));
		assertThat(wait.waitNanos(new CompletionException(denied(250)))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
	}

	@Test
	void aWaitThatWouldEndAfterMaxWaitGivesUp() {
		PermitWait wait = PermitWait.of(this.request, Duration.ofSeconds(1));
		assertThat(wait.waitNanos(denied(60_000))).isEqualTo(-1);
		assertThat(PermitWait.of(this.request, Duration.ZERO).waitNanos(denied(1))).isEqualTo(-1);
	}

	@Test
	void aCostThatNeverFitsAndOtherFailuresGiveUpAtOnce() {
		PermitWait wait = PermitWait.of(this.request, Duration.ofHours(1));
		assertThat(wait.waitNanos(denied(RateLimitExceededException.NEVER))).isEqualTo(-1);
		assertThat(wait.waitNanos(new RateLimitUnavailableException(ProblemDetail.forStatus(HttpStatus.SERVICE_UNAVAILABLE),
				new HttpHeaders()))).isEqualTo(-1);
		assertThat(wait.waitNanos(new IllegalStateException("Redis"))).isEqualTo(-1);
	}

	@Test
	void eachLaterAttemptHasADeadlineOfItsOwnAndTheRequestsOtherAttributes() {
		PermitWait wait = PermitWait.of(this.request, Duration.ofSeconds(10));
		assertThat(wait.firstAttempt()).isSameAs(this.request);
		long first = RequestDeadline.of(this.request, TimeUnit.SECONDS.toNanos(1));
		this.request.setAttribute("other", "kept");
		LimitedRequest next = wait.nextAttempt();
		long second = RequestDeadline.of(next, TimeUnit.HOURS.toNanos(1));
		assertThat(second - first).isGreaterThan(TimeUnit.MINUTES.toNanos(59));
		assertThat(RequestDeadline.of(this.request, 0)).isEqualTo(first);
		assertThat(next.getAttribute("other")).isEqualTo("kept");
	}

	private static RateLimitExceededException denied(long retryAfterMs) {
		return new RateLimitExceededException(ProblemDetail.forStatus(HttpStatus.TOO_MANY_REQUESTS), new HttpHeaders(),
				List.of("api"), "api", retryAfterMs);
	}

}
