package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.jspecify.annotations.Nullable;

/**
 * The {@link FailurePolicy#FAIL_LOCAL} side of the enforcer: this instance's own {@link InMemoryRateLimiter}, which
 * decides fail-local limits with their local share while Redis fails, and a circuit breaker that spares requests
 * the wait for a Redis that has just failed.
 *
 * <p>
 * The breaker: after a Redis failure it is open for {@code ratelimit.fail-local.probe-interval}, and limits of
 * which some are fail-local and none fail-closed ({@link #spareRedisFor}) are decided without asking Redis. Then
 * one request asks Redis (the probe) while the others stay local; an answer closes the breaker, a failure opens it
 * again. Any Redis answer or failure,
 * whatever the limits' policies, moves it: it follows the health of Redis, not of one limit.
 *
 * <p>
 * It is one breaker per instance, not per Redis node: exact for a standalone Redis or Sentinel (one master), coarse
 * for a cluster with one master of several down. There, a client of the failed master opens it, so the instance
 * decides the fail-local limits of every client locally, those of the healthy masters too, until a probe's client
 * lives on a healthy master; the next client of the failed master opens it again. A breaker per node would need the
 * cluster's map of slots, which only the Redis client has (docs/FAILURES.md, "Failover").
 */
public final class LocalFallback {

	private static final long CLOSED = 0;

	private final RateLimiter local;

	private final long probeIntervalNanos;

	/** {@link #CLOSED}, or the {@link System#nanoTime()} until which Redis is not asked. */
	private final AtomicLong openUntil = new AtomicLong(CLOSED);

	private final AtomicBoolean probing = new AtomicBoolean();

	/** A fallback whose local state decides on the system's clock. */
	public LocalFallback(Duration probeInterval) {
		this(probeInterval, InstantSource.system());
	}

	/**
	 * @param probeInterval {@code ratelimit.fail-local.probe-interval}, measured on {@link System#nanoTime()} (Redis'
	 * health is a matter of real time)
	 * @param clock the local state's clock: the application's {@code rateLimitClock} when it has one, as the limiter's
	 */
	public LocalFallback(Duration probeInterval, InstantSource clock) {
		this.probeIntervalNanos = probeInterval.toNanos();
		this.local = new InMemoryRateLimiter(clock);
	}

	/** Every client's state was reset: so is the local state; the breaker follows Redis as before. */
	void reset() {
		this.local.resetAll();
	}

	/**
	 * Whether limits that {@link #spareRedisFor} should be decided without asking Redis: while the breaker is open,
	 * except for the one request that probes Redis once the interval has passed.
	 */
	boolean skipRedis() {
		long until = this.openUntil.get();
		if (until == CLOSED) {
			return false;
		}
		if (System.nanoTime() - until < 0) {
			return true;
		}
		return !this.probing.compareAndSet(false, true);
	}

	/** @return whether the breaker was open, i.e. Redis answers again after local decisions */
	boolean redisAnswered() {
		if (this.openUntil.get() == CLOSED) {
			return false;
		}
		this.probing.set(false);
		return this.openUntil.getAndSet(CLOSED) != CLOSED;
	}

	void redisFailed() {
		long until = System.nanoTime() + this.probeIntervalNanos;
		this.openUntil.set((until == CLOSED) ? 1 : until);
		this.probing.set(false);
	}

	/**
	 * The local decision of the fail-local limits among {@code limits}, or {@code null} when there are none. Limits
	 * with one name are one budget here too: the request takes the sum of their costs. Concurrency limits take
	 * {@code lease}, given back here when the call ends.
	 */
	@Nullable RateLimitDecision decide(String clientKey, List<ConfiguredLimit> limits, @Nullable String lease) {
		List<LimitRequest> shares = Leases.withLease(ConfiguredLimit.sharedBudgets(limits, ConfiguredLimit::localShare),
				lease);
		return shares.isEmpty() ? null : this.local.tryAcquire(clientKey, shares);
	}

	/** Renews leases taken in this instance's memory while Redis failed: the same acquire again. */
	RateLimitDecision renew(String clientKey, List<LimitRequest> leases) {
		return this.local.tryAcquire(clientKey, leases);
	}

	/**
	 * The local state of a fail-local limit, read without consuming (admission of a call charged by outcome), or
	 * {@code null} for a limit of another policy.
	 */
	@Nullable LimitDecision peek(String clientKey, ConfiguredLimit limit) {
		return (limit.localShare() != null) ? this.local.peek(clientKey, limit.localShare()) : null;
	}

	/**
	 * Settles what this instance's memory reserved for {@code clientKey} while Redis failed.
	 */
	void settle(String clientKey, List<Settlement> settlements) {
		this.local.settle(clientKey, settlements);
	}

	/**
	 * Whether the breaker may spare these limits the call: some are fail-local and none is fail-closed. Decided
	 * without Redis, they end as they would after a failure (the fail-local ones locally, fail-open ones skipped);
	 * a fail-closed limit, or limits of no fail-local policy, still ask Redis, so that they are limited again from
	 * the first request Redis answers.
	 */
	static boolean spareRedisFor(List<ConfiguredLimit> limits) {
		boolean local = false;
		for (ConfiguredLimit limit : limits) {
			if (limit.failurePolicy() == FailurePolicy.FAIL_CLOSED) {
				return false;
			}
			local |= limit.failurePolicy() == FailurePolicy.FAIL_LOCAL;
		}
		return local;
	}

}
