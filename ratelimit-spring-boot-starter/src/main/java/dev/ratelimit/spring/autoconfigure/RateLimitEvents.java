package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.core.RateLimitDecision;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Records decisions and Redis failures: a WARN log at most once per interval (a Redis outage would otherwise log
 * once per request), and Micrometer counters when a {@link MeterRegistry} is present:
 * {@code ratelimit.decisions} (tag {@code outcome}: allowed and denied by the limiter, local-allowed and
 * local-denied by a fail-local limit decided on this instance while Redis fails) and {@code ratelimit.redis.failures}
 * (Redis calls that failed or timed out).
 */
class RateLimitEvents {

	private static final Log logger = LogFactory.getLog(RateLimitEvents.class);

	private final long logIntervalNanos;

	private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);

	private final AtomicLong unlogged = new AtomicLong();

	RateLimitEvents(Duration logInterval) {
		this.logIntervalNanos = logInterval.toNanos();
	}

	void redisFailed(RuntimeException ex) {
		long now = System.nanoTime();
		long last = this.lastLogged.get();
		if (now - last >= this.logIntervalNanos && this.lastLogged.compareAndSet(last, now)) {
			long suppressed = this.unlogged.getAndSet(0);
			logger.warn("Redis could not decide a rate-limited request; applying the limits' failure policy (fail-local"
					+ " limits are decided on this instance until Redis answers)"
					+ ((suppressed > 0) ? " (" + suppressed + " similar " + ((suppressed == 1) ? "failure" : "failures")
							+ " not logged)" : "") + ": "
					+ describe(ex));
		}
		else {
			this.unlogged.incrementAndGet();
		}
	}

	void decided(RateLimitDecision decision) {
	}

	/** A fail-local decision made by this instance alone while Redis fails. */
	void decidedLocally(RateLimitDecision decision) {
	}

	/** Redis answered after failing: fail-local limits are decided by Redis again. */
	void redisAnsweredAgain() {
		logger.info("Redis answers again: fail-local limits are decided by Redis from now on");
	}

	/**
	 * The exception and its root cause: a client's "Unable to connect" hides the reason (a wrong password, an
	 * unknown database) in its causes.
	 */
	static String describe(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return (root == ex) ? ex.toString() : ex + " (cause: " + root + ")";
	}

	/** Adds the Micrometer counters. */
	static final class Metered extends RateLimitEvents {

		private final MeterRegistry registry;

		Metered(Duration logInterval, MeterRegistry registry) {
			super(logInterval);
			this.registry = registry;
		}

		@Override
		void redisFailed(RuntimeException ex) {
			super.redisFailed(ex);
			this.registry.counter("ratelimit.redis.failures").increment();
		}

		@Override
		void decided(RateLimitDecision decision) {
			this.registry.counter("ratelimit.decisions", "outcome", decision.allowed() ? "allowed" : "denied")
				.increment();
		}

		@Override
		void decidedLocally(RateLimitDecision decision) {
			this.registry
				.counter("ratelimit.decisions", "outcome", decision.allowed() ? "local-allowed" : "local-denied")
				.increment();
		}

	}

}
