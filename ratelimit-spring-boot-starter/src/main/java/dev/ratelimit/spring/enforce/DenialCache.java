package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimitDecision;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ConcurrentLruCache;

/**
 * Denials this instance remembers ({@code ratelimit.denials.*}), so that a client that keeps sending while it is
 * denied costs Redis nothing: a request of a client key denied with retry-after R, against the same limits (names and
 * shapes) and with the same costs, is denied again without Redis until R has passed, counted from when the
 * denied call was sent, and never longer than {@code max-age} (with several denying limits, R is the shortest of
 * their waits, so that every field of the remembered decision stays true). Other traffic can only make a denial last longer, so
 * within R the answer is the one Redis would give; {@code max-age} bounds how long a reset or a plan change made
 * through another instance goes unseen. The 429 carries the remembered decision's fields with its times reduced by
 * the time since. A request of the client that Redis admits meanwhile (another limit, a cheaper cost) ends its
 * remembered denials on this instance, since it changed what they would say.
 *
 * <p>
 * Bounded: at most {@code max-clients} client keys, the least recently denied forgotten first (Spring's
 * {@link ConcurrentLruCache}; Caffeine would be a library on the application's class path, which Spring Boot's cache
 * auto-configuration would pick up).
 */
public final class DenialCache {

	private final ConcurrentLruCache<String, Map<String, Denial>> clients;

	private final long maxAgeNanos;

	private final LongSupplier nanoTime;

	private final boolean enabled;

	/** A denial remembered: the decision, and when it stops answering, on {@link System#nanoTime()}. */
	private record Denial(RateLimitDecision decision, long sentAt, long until) {
	}

	/**
	 * @param enabled {@code ratelimit.denials.remember}
	 * @param maxAge longest a denial answers; positive
	 * @param maxClients most client keys remembered; positive
	 * @param nanoTime the clock, {@link System#nanoTime()} but in tests
	 */
	public DenialCache(boolean enabled, Duration maxAge, int maxClients, LongSupplier nanoTime) {
		this.enabled = enabled;
		this.maxAgeNanos = maxAge.toNanos();
		this.clients = new ConcurrentLruCache<>(maxClients, (client) -> new ConcurrentHashMap<>(2));
		this.nanoTime = nanoTime;
	}

	/** When a call to the store starts, for {@link #remember}. */
	long now() {
		return this.nanoTime.getAsLong();
	}

	/**
	 * Remembers {@code decision} when it is a denial that a wait can end.
	 * @param sentAt {@link #now()} before the call that decided it was sent
	 */
	void remember(String clientKey, List<LimitRequest> limits, RateLimitDecision decision, long sentAt) {
		if (!this.enabled || decision.allowed() || decision.never() || anyConcurrency(limits)) {
			return;
		}
		// Until the first denying limit would admit: from then on, a field of the remembered decision would be wrong
		// (that limit's verdict), even though the request would still be denied by the others. None of them is
		// "never": the most restrictive would be, and the decision too.
		long wait = decision.violated()
			.stream()
			.mapToLong((denial) -> denial.retryAfterMs().orElseThrow())
			.min()
			.orElseThrow();
		long until = sentAt + Math.min(this.maxAgeNanos, wait * 1_000_000);
		this.clients.get(clientKey).put(identity(limits), new Denial(decision, sentAt, until));
	}

	/** A concurrency limit's denial is never remembered: a lease can come back at any moment. */
	static boolean anyConcurrency(List<LimitRequest> limits) {
		for (LimitRequest limit : limits) {
			if (!limit.definition().algorithm().rate()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The denial remembered for this request, with its times reduced by the time since it was decided; {@code null}
	 * when there is none, it has run out, or the request costs less than the one denied.
	 */
	@Nullable RateLimitDecision recall(String clientKey, List<LimitRequest> limits) {
		if (!this.enabled || !this.clients.contains(clientKey)) {
			return null;
		}
		Map<String, Denial> denials = this.clients.get(clientKey);
		String identity = identity(limits);
		Denial denial = denials.get(identity);
		if (denial == null) {
			return null;
		}
		long now = this.nanoTime.getAsLong();
		if (now - denial.until() >= 0) {
			denials.remove(identity, denial);
			return null;
		}
		List<LimitDecision> decided = denial.decision().decisions();
		for (int i = 0; i < limits.size(); i++) {
			if (limits.get(i).cost() != decided.get(i).request().cost()) {
				// a cheaper request may fit where the denied one did not; a costlier one waits longer, and its
				// Retry-After must say how long
				return null;
			}
		}
		return denial.decision().aged((now - denial.sentAt()) / 1_000_000);
	}

	/** Forgets every denial: the limits changed, and a denial remembered under their old shapes would be wrong. */
	public void forgetAll() {
		this.clients.clear();
	}

	/**
	 * Forgets every denial of {@code clientKey}: its state was reset, or a request of it was admitted, which may have
	 * changed what a remembered denial would say (its remaining units, its wait).
	 */
	public void forget(String clientKey) {
		if (this.enabled && this.clients.contains(clientKey)) {
			this.clients.remove(clientKey);
		}
	}

	/** The limits' names, shapes and modes, not their costs. */
	private static String identity(List<LimitRequest> limits) {
		StringBuilder identity = new StringBuilder();
		appendIdentity(identity, limits);
		return identity.toString();
	}

	/** Appends the limits' names, shapes and modes, not their costs, to {@code identity}. */
	private static void appendIdentity(StringBuilder identity, List<LimitRequest> limits) {
		for (LimitRequest request : limits) {
			LimitDefinition limit = request.definition();
			identity.append(limit.name()).append(' ').append(limit.algorithm()).append(' ').append(limit.limit())
				.append(' ').append(limit.windowMs()).append(' ').append(limit.capacity()).append(' ')
				.append(request.shadow()).append('\n');
		}
	}

}
