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
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Records decisions and Redis failures: a WARN log at most once per interval (a Redis outage would otherwise log
 * once per request), and Micrometer meters when a {@link MeterRegistry} is present:
 * <ul>
 * <li>{@code ratelimit.decisions}, a counter per limit and outcome (tags {@code limit}, the limit's name, never a
 * client id, and {@code outcome}): each limit's own verdict, {@code allowed} or {@code denied}; {@code shadow-denied}
 * for a shadow limit's denial; {@code local-allowed} and {@code local-denied} for a fail-local limit decided on this
 * instance while Redis fails; {@code fail-open} for a limit skipped because Redis failed; {@code fail-closed} for a
 * limit whose Redis failure answered 503. Created at startup for every limit, so that dashboards show zeros;</li>
 * <li>{@code ratelimit.redis.calls}, a timer of the decision calls to Redis (tag {@code outcome}: {@code success},
 * {@code failure}, {@code timeout}); not with the in-memory store;</li>
 * <li>{@code ratelimit.redis.failures}, a counter of Redis calls that failed or timed out;</li>
 * <li>{@code ratelimit.denials.remembered}, a counter of requests denied from a denial this instance remembers,
 * without a Redis call ({@link DenialCache}); their limits are counted in {@code ratelimit.decisions} as
 * well.</li>
 * <li>{@code ratelimit.configuration.changes}, a counter of the changes of the limits at runtime (tags {@code source}:
 * {@code endpoint}, {@code store}, {@code environment}; {@code outcome}: {@code applied}, {@code refused}); the meters
 * of limits a change adds are created with it, those of limits it removes are removed;</li>
 * <li>{@code ratelimit.leases.held}, a gauge of the leases of concurrency limits this instance holds for calls still
 * running (each renewed until its call ends);</li>
 * <li>{@code ratelimit.leases.lost}, a counter per limit of the leases this instance's running calls lost (expired
 * before a renewal, or released by an operator, with the limit full); created on the first loss.</li>
 * </ul>
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

	/** Adds the Micrometer meters. */
	public static final class Metered extends RateLimitEventRecorder {

		private static final List<String> OUTCOMES = List.of("allowed", "denied", "shadow-denied", "local-allowed",
				"local-denied", "fail-open", "fail-closed");

		private final MeterRegistry registry;

		/** Whether the limiter calls Redis: not with the in-memory store, which has no calls to time. */
		private final boolean redis;

		public Metered(Duration logInterval, MeterRegistry registry, boolean redis) {
			super(logInterval);
			this.registry = registry;
			this.redis = redis;
		}

		@Override
		void redisFailed(RuntimeException ex) {
			super.redisFailed(ex);
			this.registry.counter("ratelimit.redis.failures").increment();
		}

		@Override
		void decided(RateLimitDecision decision) {
			for (LimitDecision limit : decision.decisions()) {
				decision(limit.request().name(), outcome(limit, "allowed", "denied")).increment();
			}
		}

		@Override
		void decidedLocally(RateLimitDecision decision) {
			for (LimitDecision limit : decision.decisions()) {
				decision(limit.request().name(), outcome(limit, "local-allowed", "local-denied")).increment();
			}
		}

		@Override
		void failedOpen(List<ConfiguredLimit> limits) {
			limits.forEach((limit) -> decision(limit.name(), "fail-open").increment());
		}

		@Override
		void failedClosed(List<ConfiguredLimit> limits) {
			limits.forEach((limit) -> decision(limit.name(), "fail-closed").increment());
		}

		@Override
		void redisCall(long nanos, String outcome) {
			if (!this.redis) {
				return;
			}
			Timer.builder("ratelimit.redis.calls")
				.description("Decision calls of the rate limiter to Redis")
				.tag("outcome", outcome)
				.register(this.registry)
				.record(nanos, TimeUnit.NANOSECONDS);
		}

		@Override
		public void register(Collection<String> limitNames) {
			for (String name : limitNames) {
				for (String outcome : OUTCOMES) {
					decision(name, outcome);
				}
			}
			for (String outcome : this.redis ? List.of("success", "failure", "timeout") : List.<String>of()) {
				Timer.builder("ratelimit.redis.calls")
					.description("Decision calls of the rate limiter to Redis")
					.tag("outcome", outcome)
					.register(this.registry);
			}
			this.registry.counter("ratelimit.redis.failures");
			remembered();
		}

		@Override
		public void applied(String source, LimitConfiguration previous, LimitConfiguration next) {
			change(source, "applied").increment();
			Set<String> names = next.names().names();
			register(names);
			for (String removed : previous.names().names()) {
				if (!names.contains(removed)) {
					this.registry.find("ratelimit.decisions").tag("limit", removed).meters().forEach(this.registry::remove);
				}
			}
		}

		@Override
		public void refused(String source, RuntimeException reason) {
			change(source, "refused").increment();
		}

		private Counter change(String source, String outcome) {
			return Counter.builder("ratelimit.configuration.changes")
				.description("Changes of the rate limits at runtime, by source (endpoint, store, environment) and outcome")
				.tag("source", source)
				.tag("outcome", outcome)
				.register(this.registry);
		}

		@Override
		void leases(IntSupplier held) {
			Gauge.builder("ratelimit.leases.held", held, IntSupplier::getAsInt)
				.description("Leases of concurrency limits this instance holds for calls still running")
				.strongReference(true)
				.register(this.registry);
		}

		@Override
		void leaseLost(List<String> limits) {
			super.leaseLost(limits);
			for (String limit : limits) {
				Counter.builder("ratelimit.leases.lost")
					.description("Leases that calls running on this instance lost before they ended")
					.tag("limit", limit)
					.register(this.registry)
					.increment();
			}
		}

		@Override
		void deniedFromMemory() {
			remembered().increment();
		}

		private Counter remembered() {
			return Counter.builder("ratelimit.denials.remembered")
				.description("Requests denied from a denial this instance remembers, without a Redis call")
				.register(this.registry);
		}

		private static String outcome(LimitDecision limit, String allowed, String denied) {
			if (limit.allowed()) {
				return allowed;
			}
			return limit.request().shadow() ? "shadow-denied" : denied;
		}

		private Counter decision(String limit, String outcome) {
			return Counter.builder("ratelimit.decisions")
				.description("Rate-limit decisions per limit and outcome")
				.tag("limit", limit)
				.tag("outcome", outcome)
				.register(this.registry);
		}

	}

}
