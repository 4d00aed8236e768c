package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link OncePerInterval} on a clock the test moves. */
class OncePerIntervalTests {

	private final AtomicLong now = new AtomicLong(-5_000_000_000L);

	private final OncePerInterval once = new OncePerInterval(Duration.ofSeconds(1), this.now::get);

	@Test
	void firstAskGetsItThenNobodyUntilTheIntervalHasPassed() {
		assertThat(this.once.tryAcquire()).isTrue();
		assertThat(this.once.tryAcquire()).isFalse();
		advance(999);
		assertThat(this.once.tryAcquire()).isFalse();
		advance(1);
		assertThat(this.once.tryAcquire()).isTrue();
		assertThat(this.once.tryAcquire()).isFalse();
	}

	@Test
	void theIntervalCountsFromTheLastTimeItHappenedNotFromTheLastAsk() {
		assertThat(this.once.tryAcquire()).isTrue();
		advance(2_500);
		assertThat(this.once.tryAcquire()).isTrue();
		advance(900);
		assertThat(this.once.tryAcquire()).isFalse();
		advance(100);
		assertThat(this.once.tryAcquire()).isTrue();
	}

	@Test
	void happeningElsewhereCountsAsTheIntervalsOne() {
		advance(300);
		this.once.happened();
		advance(999);
		assertThat(this.once.tryAcquire()).isFalse();
		advance(1);
		assertThat(this.once.tryAcquire()).isTrue();
	}

	@Test
	void happeningElsewhereDuringAnIntervalStartsANewOne() {
		assertThat(this.once.tryAcquire()).isTrue();
		advance(500);
		this.once.happened();
		advance(500);
		assertThat(this.once.tryAcquire()).isFalse();
		advance(499);
		assertThat(this.once.tryAcquire()).isFalse();
		advance(1);
		assertThat(this.once.tryAcquire()).isTrue();
	}

	private void advance(long millis) {
		this.now.addAndGet(millis * 1_000_000);
	}

}
