package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The threads of this JVM waiting in {@link RateLimiter#acquire} for a permit of one limiter, client and limits (with
 * their costs), in line: one of them at a time asks the store, the others wait behind it in the order they came, so
 * that many threads waiting on one limit do not all wake at the same retry-after and ask at once, one of them winning
 * (a herd: about 12 decisions per permit with 16 threads on one token bucket). The rules are those of the Spring
 * starter's waits (docs/ALGORITHMS.md, "Waiting for a permit of rate limits"), for a blocking thread:
 * <ul>
 * <li>A call for which no thread waits asks at once, without a line (a call admitted at once never waits on another).
 * Denied, it joins the line of its limiter, client and limits; so does a call that comes while the line has threads,
 * without asking.</li>
 * <li>The thread at the head of the line asks when the last answer said something may fit: after a denial, its
 * retry-after; after an admission, at once when the decision left room for more requests of the same costs
 * ({@link RateLimitDecision#room()}), else at its more-after. Denied, it waits again, as long as that ends within its
 * max wait, else it leaves with the denial and the next thread becomes the head. Admitted, it leaves.</li>
 * <li>A thread that would wait past its max wait for the line's next ask, or is still behind others when its max wait
 * ends while the line asks next only later, leaves without asking, with the line's last denial, its waits reduced by
 * the time since ({@link RateLimitDecision#aged}) and its retry-after no sooner than the line's next ask; a thread
 * that has no such denial to give asks once. A reset of the client makes its lines ask at once. An interrupted thread leaves
 * at once, having consumed nothing (an interrupt during a round trip ends it as the client does).</li>
 * </ul>
 * A line is per JVM and limiter object: threads of other JVMs compete in the store as before, and a limiter made anew
 * for each call ({@link RateLimiter#withClock}, say) has a line for each. A line whose last thread has left is removed.
 * A request with a concurrency limit has a lease id of its own, so its calls never share a line.
 */
final class AcquireLines {

	private static final ConcurrentHashMap<Key, Line> LINES = new ConcurrentHashMap<>();

	private AcquireLines() {
	}

	/** {@link RateLimiter#acquire}, in line. */
	static RateLimitDecision acquire(RateLimiter limiter, String clientId, List<LimitRequest> limits, Duration maxWait)
			throws InterruptedException {
		MaxWait wait = MaxWait.of(maxWait);
		Key key = new Key(limiter, clientId, List.copyOf(limits));
		RateLimitDecision denied = null;
		long deniedAt = 0;
		if (maxWait.isZero() || !LINES.containsKey(key)) {
			// no thread waits for these limits: this one asks, and waits in line only when denied
			denied = ask(key);
			deniedAt = System.nanoTime();
			if (denied.allowed() || wait.waitNanos(denied.retryAfterMs()) < 0) {
				return denied;
			}
		}
		RateLimitDecision denial = denied;
		long at = deniedAt;
		Line line = LINES.compute(key, (unused, existing) -> {
			Line joined = (existing != null) ? existing : new Line();
			joined.callers++;
			if (denial != null) {
				// in the line before it is seen: a call that comes next finds the denial to wait for
				joined.denied(denial, at);
			}
			return joined;
		});
		try {
			RateLimitDecision last = line.lastDenialIfPast(wait);
			if (last != null) {
				// the line asks next only after this thread's max wait
				return last;
			}
			if (!line.lock.tryLock(Math.max(0, wait.remainingNanos()), TimeUnit.NANOSECONDS)) {
				return line.lastDenialOrAsk(key);
			}
			try {
				return line.head(key, wait);
			}
			finally {
				line.lock.unlock();
			}
		}
		finally {
			LINES.computeIfPresent(key, (unused, left) -> (--left.callers == 0) ? null : left);
		}
	}

	/**
	 * A store's state of {@code clientId} was reset ({@link RateLimiter#reset}): the client's lines ask at once, rather
	 * than wait for what the state said before. Every limiter's, since a limiter may wrap the one whose store was
	 * reset; a line of another store asks once sooner than it had to, no more.
	 */
	static void reset(String clientId) {
		LINES.forEach((key, line) -> {
			if (key.clientId().equals(clientId)) {
				line.reset();
			}
		});
	}

	/** Every store's state was reset ({@link RateLimiter#resetAll}): every line asks at once. */
	static void resetAll() {
		LINES.forEach((key, line) -> line.reset());
	}

	/** The number of lines, for tests: a line whose last thread has left is removed. */
	static int size() {
		return LINES.size();
	}

	/** One decision, unless the thread was interrupted: an interrupt never starts a round trip. */
	private static RateLimitDecision ask(Key key) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		return key.limiter().tryAcquire(key.clientId(), key.limits());
	}

	/** A line's identity: the limiter (by its equals), the client and the requests, costs included. */
	private record Key(RateLimiter limiter, String clientId, List<LimitRequest> limits) {
	}

	private static final class Line {

		/** Held by the thread at the head; fair, so that the others become the head in the order they came. */
		final ReentrantLock lock = new ReentrantLock(true);

		/** The threads in the line, the head included; changed only inside the map's compute. */
		int callers;

		/**
		 * {@link System#nanoTime()} before which the head does not ask: the last answer said nothing fits sooner.
		 * This and the last denial are guarded by the line's monitor (read by threads not at the head).
		 */
		private long askAt = System.nanoTime();

		private @Nullable RateLimitDecision lastDenial;

		private long deniedAt;

		synchronized void denied(RateLimitDecision denial, long at) {
			this.lastDenial = denial;
			this.deniedAt = at;
			if (denial.retryAfterMs().isPresent()) {
				this.askAt = Math.max(this.askAt, at + TimeUnit.MILLISECONDS.toNanos(denial.retryAfterMs().getAsLong()));
			}
		}

		synchronized void admitted(RateLimitDecision admission, long at) {
			this.askAt = at + TimeUnit.MILLISECONDS.toNanos(admission.room().afterMs());
		}

		/** The last denial as it stands, when the line asks next only after {@code wait} ends; else {@code null}. */
		synchronized @Nullable RateLimitDecision lastDenialIfPast(MaxWait wait) {
			long now = System.nanoTime();
			if (this.lastDenial == null || wait.remainingNanos() - (this.askAt - now) >= 0) {
				return null;
			}
			return lastDenial(this.lastDenial, now);
		}

		/**
		 * A thread that gives up without its turn, behind others when its max wait ended: the last denial as it
		 * stands while the line asks next only later; else (the line may ask now: others are ahead) one decision of
		 * its own.
		 */
		RateLimitDecision lastDenialOrAsk(Key key) throws InterruptedException {
			synchronized (this) {
				long now = System.nanoTime();
				if (this.lastDenial != null && this.askAt - now > 0) {
					return lastDenial(this.lastDenial, now);
				}
			}
			return ask(key);
		}

		/**
		 * The last denial aged to {@code now}, its retry-after no sooner than the line's next ask: admissions since
		 * it may have moved that later (a denial seconds old would say 1 ms).
		 */
		private RateLimitDecision lastDenial(RateLimitDecision denial, long now) {
			long untilAskMs = TimeUnit.NANOSECONDS.toMillis(this.askAt - now + 999_999);
			return denial.aged(TimeUnit.NANOSECONDS.toMillis(now - this.deniedAt)).withRetryAfterAtLeast(untilAskMs);
		}

		/** The client's state was reset: the line's next ask and its last denial no longer hold. */
		synchronized void reset() {
			this.askAt = System.nanoTime();
			this.lastDenial = null;
		}

		/** The head's turn; called with {@link #lock} held. */
		RateLimitDecision head(Key key, MaxWait wait) throws InterruptedException {
			RateLimitDecision last = lastDenialIfPast(wait);
			if (last != null) {
				return last;
			}
			long pause;
			synchronized (this) {
				pause = this.askAt - System.nanoTime();
			}
			while (true) {
				if (pause > 0) {
					TimeUnit.NANOSECONDS.sleep(pause);
				}
				RateLimitDecision decision = ask(key);
				long answeredAt = System.nanoTime();
				if (decision.allowed()) {
					admitted(decision, answeredAt);
					return decision;
				}
				denied(decision, answeredAt);
				pause = wait.waitNanos(decision.retryAfterMs());
				if (pause < 0) {
					// the next head waits for the rest of this retry-after, if its max wait allows
					return decision;
				}
			}
		}

	}

}
