package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.spring.limits.LimitConfiguration;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Records decisions and Redis failures: a WARN log at most once per interval (a Redis outage would otherwise log
 * once per request); {@link MeteredEventRecorder} adds the Micrometer meters when a {@code MeterRegistry} is present.
 */
public class RateLimitEventRecorder implements LimitConfigurations.Listener {

	private static final Log logger = LogFactory.getLog(RateLimitEventRecorder.class);

	private final long logIntervalNanos;

	private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);

	private final AtomicLong unlogged = new AtomicLong();

	public RateLimitEventRecorder(Duration logInterval) {
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

	/** Limits skipped because Redis failed ({@code fail-open}, or a shadow limit, which never refuses). */
	void failedOpen(List<ConfiguredLimit> limits) {
	}

	/** Limits whose Redis failure answered the request 503. */
	void failedClosed(List<ConfiguredLimit> limits) {
	}

	/** A request denied from a remembered denial, without asking Redis. */
	void deniedFromMemory() {
	}

	/**
	 * A call of a decision script to Redis carried {@code decisions} decisions: 1 for a decision sent alone, more for
	 * a batch of those that arrived while a call was in flight ({@code RedisRateLimiter.withBatchSizes}). Called on the
	 * thread that reads Redis' reply: quick, never blocking.
	 */
	public void decisionsPerCall(int decisions) {
	}

	/** A decision call to Redis that took {@code nanos}: {@code success}, {@code failure} or {@code timeout}. */
	void redisCall(long nanos, String outcome) {
	}

	/** Creates the meters of these limits before any traffic. */
	public void register(Collection<String> limitNames) {
	}

	/** A change of the limits in force: counted, and the meters of added limits created. */
	@Override
	public void applied(String source, LimitConfiguration previous, LimitConfiguration next) {
	}

	/** A change of the limits refused: counted (the reason is logged where the change came from). */
	@Override
	public void refused(String source, RuntimeException reason) {
	}

	/** The leases this instance holds for calls still running, read when a gauge asks. */
	void leases(IntSupplier held) {
	}

	/**
	 * A call running on this instance lost its lease of these concurrency limits (it expired before a renewal, or an
	 * operator released it) and could not take another: it runs on without one. Logged, every time: it should be rare.
	 */
	void leaseLost(List<String> limits) {
		logger.warn("A call running on this instance lost its lease of concurrency limit " + limits
				+ " (it expired before it was renewed, or an operator released it) and the limit is full: the call runs"
				+ " on without one");
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

}
