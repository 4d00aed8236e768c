package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.LimitConfiguration;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * {@link RateLimitEventRecorder}'s logs, and the Micrometer meters:
 * <ul>
 * <li>{@code ratelimit.decisions}, a counter per limit and outcome (tags {@code limit}, the limit's name, never a
 * client id, and {@code outcome}): each limit's own verdict, {@code allowed} or {@code denied}; {@code shadow-denied}
 * for a shadow limit's denial; {@code local-allowed} and {@code local-denied} for a fail-local limit decided on this
 * instance while Redis fails; {@code fail-open} for a limit skipped because Redis failed; {@code fail-closed} for a
 * limit whose Redis failure answered 503. Created at startup for every limit, so that dashboards show zeros;</li>
 * <li>{@code ratelimit.near.limit}, a counter per limit (tag {@code limit}) of the decisions of Redis (or the in-memory
 * store) that admitted a request and left the client near the limit ({@link NearLimit}: by default more than 80 % of
 * its budget used); created at startup for every limit;</li>
 * <li>{@code ratelimit.redis.calls}, a timer of the decision calls to Redis (tag {@code outcome}: {@code success},
 * {@code failure}, {@code timeout}); not with the in-memory store;</li>
 * <li>{@code ratelimit.redis.failures}, a counter of Redis calls that failed or timed out;</li>
 * <li>{@code ratelimit.redis.batch.size}, a distribution summary of the decisions each decision script call to Redis
 * carried (1: sent alone; more: decisions that arrived while a call was in flight, sent together when it returned);
 * not with the in-memory store;</li>
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
public final class MeteredEventRecorder extends RateLimitEventRecorder {

	private static final List<String> OUTCOMES = List.of("allowed", "denied", "shadow-denied", "local-allowed",
			"local-denied", "fail-open", "fail-closed");

	private final MeterRegistry registry;

	/** Whether the limiter calls Redis: not with the in-memory store, which has no calls to time. */
	private final boolean redis;

	private final NearLimit nearLimit;

	/*
	 * The meters counted on every decision, by limit (and outcome): registering a meter for each count (a builder,
	 * its tags sorted, the registry's lookup) cost more than the count. A limit's entries go when its meters are
	 * removed from the registry.
	 */
	private final Map<String, Map<String, Counter>> decisionCounters = new ConcurrentHashMap<>();

	private final Map<String, Counter> nearLimitCounters = new ConcurrentHashMap<>();

	private final Map<String, Timer> redisCallTimers = new ConcurrentHashMap<>();

	/** {@code ratelimit.redis.batch.size}, or {@code null} with the in-memory store. */
	private final @Nullable DistributionSummary batchSizes;

	/**
	 * @param logInterval at most one WARN of Redis failures per interval
	 * @param redis whether the limiter calls Redis: not with the in-memory store, which has no calls to time
	 * @param nearLimit when an admitted request counts in {@code ratelimit.near.limit}
	 */
	public MeteredEventRecorder(Duration logInterval, MeterRegistry registry, boolean redis, NearLimit nearLimit) {
		super(logInterval);
		this.registry = registry;
		this.redis = redis;
		this.nearLimit = nearLimit;
		this.batchSizes = redis ? DistributionSummary.builder("ratelimit.redis.batch.size")
			.description("Decisions per decision script call to Redis (1: sent alone)")
			.baseUnit("decisions")
			.register(registry) : null;
	}

	@Override
	public void decisionsPerCall(int decisions) {
		if (this.batchSizes != null) {
			this.batchSizes.record(decisions);
		}
	}

	@Override
	void redisFailed(RuntimeException ex) {
		super.redisFailed(ex);
		this.registry.counter("ratelimit.redis.failures").increment();
	}

	@Override
	void decided(RateLimitDecision decision) {
		for (LimitDecision limit : decision.decisions()) {
			decision(limit.request().name(), Outcome.of(limit, false)).increment();
			// only what the decision admitted (consumed): not a limit beside another that denied, nor a remembered
			// denial's limits, which are decided again from memory
			if (decision.allowed() && limit.allowed() && this.nearLimit.test(limit)) {
				nearLimit(limit.request().name()).increment();
			}
		}
	}

	@Override
	void decidedLocally(RateLimitDecision decision) {
		for (LimitDecision limit : decision.decisions()) {
			decision(limit.request().name(), Outcome.of(limit, true)).increment();
		}
	}

	@Override
	void failedOpen(List<ConfiguredLimit> limits) {
		limits.forEach((limit) -> decision(limit.name(), Outcome.FAIL_OPEN).increment());
	}

	@Override
	void failedClosed(List<ConfiguredLimit> limits) {
		limits.forEach((limit) -> decision(limit.name(), Outcome.FAIL_CLOSED).increment());
	}

	@Override
	void redisCall(long nanos, String outcome) {
		if (!this.redis) {
			return;
		}
		redisCalls(outcome).record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void register(Collection<String> limitNames) {
		for (String name : limitNames) {
			for (String outcome : OUTCOMES) {
				decision(name, outcome);
			}
			nearLimit(name);
		}
		for (String outcome : this.redis ? List.of("success", "failure", "timeout") : List.<String>of()) {
			redisCalls(outcome);
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
				this.registry.find("ratelimit.near.limit").tag("limit", removed).meters().forEach(this.registry::remove);
				this.decisionCounters.remove(removed);
				this.nearLimitCounters.remove(removed);
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

	private Counter nearLimit(String limit) {
		return cached(this.nearLimitCounters, limit, () -> Counter.builder("ratelimit.near.limit")
			.description("Admitted requests that left the client near the limit (more than the near-limit ratio of its budget used)")
			.tag("limit", limit)
			.register(this.registry));
	}

	private Counter decision(String limit, String outcome) {
		Map<String, Counter> byOutcome = cached(this.decisionCounters, limit, ConcurrentHashMap::new);
		return cached(byOutcome, outcome, () -> Counter.builder("ratelimit.decisions")
			.description("Rate-limit decisions per limit and outcome")
			.tag("limit", limit)
			.tag("outcome", outcome)
			.register(this.registry));
	}

	private Timer redisCalls(String outcome) {
		return cached(this.redisCallTimers, outcome, () -> Timer.builder("ratelimit.redis.calls")
			.description("Decision calls of the rate limiter to Redis")
			.tag("outcome", outcome)
			.register(this.registry));
	}

	/**
	 * The map's value for the key, made (and registered) once: a plain read first, because computeIfAbsent may lock
	 * its bin even when the key is present, and these are read on every decision.
	 */
	private static <K, V> V cached(Map<K, V> map, K key, Supplier<V> made) {
		V value = map.get(key);
		return (value != null) ? value : map.computeIfAbsent(key, (unused) -> made.get());
	}

}
