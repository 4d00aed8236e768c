package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.RateLimitException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.expression.EvaluationContext;

/**
 * Decides one request against the limits that apply to it, for the filter and the advisor alike.
 *
 * <p>
 * Limits whose client keys are equal share a Redis hash tag and are decided in one script call, all or nothing.
 * Limits with different keys (say one by IP, one by user) are decided one key after the other; a denial stops the
 * sequence, but limits already decided for an earlier key keep their consumption. When Redis fails, the failure
 * policy of the limits concerned applies: any {@code fail-closed} limit makes it a 503, otherwise those limits are
 * skipped.
 *
 * <p>
 * One request has one deadline, {@code ratelimit.redis.timeout} from its first decision: however many keys, and
 * whether the filter, the advisor or both decide, the request never waits longer in the limiter. Once it has passed,
 * the remaining limits follow their failure policy without asking Redis.
 */
final class RateLimitEnforcer {

	/** Request attribute: the {@link System#nanoTime()} at which the request's time in the limiter is up. */
	private static final String DEADLINE = RateLimitEnforcer.class.getName() + ".deadline";

	private final RateLimiter limiter;

	private final long timeoutNanos;

	private final ClientKeys clientKeys;

	private final RateLimitResponses responses;

	private final RateLimitEvents events;

	RateLimitEnforcer(RateLimiter limiter, Duration timeout, ClientKeys clientKeys, RateLimitResponses responses,
			RateLimitEvents events) {
		this.limiter = limiter;
		this.timeoutNanos = timeout.toNanos();
		this.clientKeys = clientKeys;
		this.responses = responses;
		this.events = events;
	}

	ClientKeys clientKeys() {
		return this.clientKeys;
	}

	/**
	 * Limits with one name are one budget (their shapes agree: {@link LimitNames}); when several apply to one request
	 * (a rule and an annotation, a class and its method), the request takes the sum of their costs from it once.
	 */
	private static List<LimitDefinition> sharedBudgetsMerged(List<ConfiguredLimit> limits) {
		Map<String, LimitDefinition> byName = new LinkedHashMap<>();
		for (ConfiguredLimit limit : limits) {
			byName.merge(limit.name(), limit.definition(),
					(first, second) -> first.withCost(first.cost() + second.cost()));
		}
		return List.copyOf(byName.values());
	}

	/**
	 * Decides the request and, when it goes ahead, adds the rate-limit fields to {@code response}.
	 * @throws RateLimitException when the request is denied (429), Redis fails a fail-closed limit (503), or a key is
	 * missing and rejected (400)
	 */
	void enforce(HttpServletRequest request, HttpServletResponse response, List<ConfiguredLimit> limits,
			EvaluationContext context) {
		Map<String, List<ConfiguredLimit>> byKey = new LinkedHashMap<>();
		for (ConfiguredLimit limit : limits) {
			byKey.computeIfAbsent(this.clientKeys.resolve(limit, request, context), (key) -> new ArrayList<>())
				.add(limit);
		}
		List<LimitDecision> applied = new ArrayList<>();
		long deadline = deadline(request);
		for (Map.Entry<String, List<ConfiguredLimit>> group : byKey.entrySet()) {
			List<LimitDefinition> definitions = sharedBudgetsMerged(group.getValue());
			RateLimitDecision decision;
			try {
				decision = decide(group.getKey(), definitions, deadline);
			}
			catch (RuntimeException ex) {
				this.events.redisFailed(ex);
				if (group.getValue().stream().anyMatch((limit) -> limit.failurePolicy() == FailurePolicy.FAIL_CLOSED)) {
					throw this.responses.unavailable(request);
				}
				continue;
			}
			applied.addAll(decision.decisions());
			this.events.decided(decision);
			if (!decision.allowed()) {
				throw this.responses.exceeded(request, response, applied, decision);
			}
		}
		if (!applied.isEmpty()) {
			this.responses.headers().addTo(response, applied);
		}
	}

	private long deadline(HttpServletRequest request) {
		if (request.getAttribute(DEADLINE) instanceof Long deadline) {
			return deadline;
		}
		long deadline = System.nanoTime() + this.timeoutNanos;
		request.setAttribute(DEADLINE, deadline);
		return deadline;
	}

	/**
	 * The decision, waited for until {@code deadline} at most.
	 * @throws RuntimeException when Redis fails, or has not answered by then
	 */
	private RateLimitDecision decide(String clientKey, List<LimitDefinition> definitions, long deadline) {
		long remaining = deadline - System.nanoTime();
		if (remaining <= 0) {
			throw new DeadlineExceededException("no time left of ratelimit.redis.timeout for this request");
		}
		CompletableFuture<RateLimitDecision> decision = this.limiter.tryAcquireAsync(clientKey, definitions)
			.toCompletableFuture();
		try {
			return decision.get(remaining, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			decision.cancel(false);
			throw new DeadlineExceededException("Redis did not decide within ratelimit.redis.timeout");
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException(ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
	}

	/** The request's time in the limiter ran out. */
	static final class DeadlineExceededException extends RuntimeException {

		DeadlineExceededException(String message) {
			super(message, null, false, false);
		}

	}

}
