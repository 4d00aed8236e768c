package dev.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The threads of this JVM waiting in {@link RateLimiter#acquire} for a permit of one limiter, client and limits (with
 * their costs), in line: one of them at a time asks the store, the others wait behind it in the order they came, so
 * that many threads waiting on one limit do not all wake at the same retry-after and ask at once, one of them winning
 * (a herd: about 11 decisions per permit with 16 threads on one token bucket). docs/ALGORITHMS.md, "Waiting for a
 * permit of rate limits", states the rules the Spring starter's waits follow; these are the same for a blocking
 * thread:
 * <ul>
 * <li>The thread at the head of the line asks; denied, it sleeps the denial's retry-after and asks again, as long as
 * that ends within its max wait; else it leaves the line with the denial, and the next thread becomes the head.</li>
 * <li>Admitted, it hands over: when the decision left room for more requests of the same costs
 * ({@link RateLimitDecision#room()}), the next thread asks at once; when it left none, the next asks when one more unit
 * fits (the decision's more-after), or, if that is after its max wait, asks once at once and leaves with the
 * answer.</li>
 * <li>A thread still behind others when its max wait ends asks once and leaves with the answer: it never waits past
 * its max wait. An interrupted thread leaves the line at once, having consumed nothing.</li>
 * </ul>
 * A line is per JVM and limiter: threads of other JVMs compete in the store as before. A line whose last thread has
 * left is removed. A request with a concurrency limit has a lease id of its own, so its calls never share a line.
 */
final class AcquireLines {

	private static final ConcurrentHashMap<Key, Line> LINES = new ConcurrentHashMap<>();

	private AcquireLines() {
	}

	/** {@link RateLimiter#acquire}, in line. */
	static RateLimitDecision acquire(RateLimiter limiter, String clientId, List<LimitRequest> limits, Duration maxWait)
			throws InterruptedException {
		MaxWait wait = MaxWait.of(maxWait);
		if (maxWait.isZero()) {
			return limiter.tryAcquire(clientId, limits);
		}
		Key key = new Key(limiter, clientId, List.copyOf(limits));
		Line line = LINES.compute(key, (unused, existing) -> {
			Line joined = (existing != null) ? existing : new Line();
			joined.callers++;
			return joined;
		});
		try {
			if (!line.lock.tryLock(Math.max(0, wait.remainingNanos()), TimeUnit.NANOSECONDS)) {
				// its whole max wait behind others: the one last try a caller without a line would have had
				return limiter.tryAcquire(clientId, limits);
			}
			try {
				return line.ask(limiter, clientId, limits, wait);
			}
			finally {
				line.lock.unlock();
			}
		}
		finally {
			LINES.computeIfPresent(key, (unused, left) -> (--left.callers == 0) ? null : left);
		}
	}

	/** The number of lines, for tests: a line whose last thread has left is removed. */
	static int size() {
		return LINES.size();
	}

	/** A line's identity: the limiter (by its equals), the client and the requests, costs included. */
	private record Key(RateLimiter limiter, String clientId, List<LimitRequest> limits) {
	}

	private static final class Line {

		/** Held by the thread at the head; fair, so that the others become the head in the order they came. */
		final ReentrantLock lock = new ReentrantLock(true);

		/** The threads in the line, the head included; changed only inside the map's compute. */
		int callers;

		/** {@link System#nanoTime()} before which the head does not ask: the last answer said nothing fits sooner. */
		private long askAt = System.nanoTime();

		/** The head's turn; called with {@link #lock} held. */
		RateLimitDecision ask(RateLimiter limiter, String clientId, List<LimitRequest> limits, MaxWait wait)
				throws InterruptedException {
			long pause = this.askAt - System.nanoTime();
			// when nothing fits within its max wait, one try at once, as without a line, and its answer
			boolean once = pause > 0 && wait.remainingNanos() - pause < 0;
			if (pause > 0 && !once) {
				TimeUnit.NANOSECONDS.sleep(pause);
			}
			while (true) {
				RateLimitDecision decision = limiter.tryAcquire(clientId, limits);
				long answeredAt = System.nanoTime();
				if (decision.allowed()) {
					RateLimitDecision.Room room = decision.room();
					this.askAt = answeredAt + TimeUnit.MILLISECONDS.toNanos(room.afterMs());
					return decision;
				}
				if (decision.retryAfterMs().isPresent()) {
					// for the next head, should this one leave: asking sooner would only be denied again
					this.askAt = answeredAt + TimeUnit.MILLISECONDS.toNanos(decision.retryAfterMs().getAsLong());
				}
				long waitNanos = once ? -1 : wait.waitNanos(decision.retryAfterMs());
				if (waitNanos < 0) {
					return decision;
				}
				TimeUnit.NANOSECONDS.sleep(waitNanos);
			}
		}

	}

}
