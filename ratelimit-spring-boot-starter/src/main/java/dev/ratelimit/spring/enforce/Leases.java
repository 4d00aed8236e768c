package dev.ratelimit.spring.enforce;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.Settlement;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.jspecify.annotations.Nullable;

/**
 * The leases of concurrency limits ({@code algorithm: concurrency}): the id a request's leases take, and what a
 * decision leaves held. A request takes one lease id, made here before its first acquire so that it can give back
 * what an acquire it never saw answered may have taken (docs/ALGORITHMS.md, "Concurrency").
 */
final class Leases {

	private Leases() {
	}

	/**
	 * A new lease id when {@code limits} has a concurrency limit, else {@code null} (no id made per request):
	 * {@code <holder>/<random>}, so that an operator listing the leases sees which instance holds each.
	 * @param holder this instance ({@link #holder()})
	 */
	static @Nullable String idFor(List<ConfiguredLimit> limits, String holder) {
		for (ConfiguredLimit limit : limits) {
			if (limit.concurrency() || anyOtherShape(limit)) {
				return holder + "/" + LimitRequest.newLeaseId();
			}
		}
		return null;
	}

	/**
	 * This instance as its lease ids name it: {@code <pid>@<host>} as the JVM names itself, in the characters a lease
	 * id may hold, at most 60 of them. Read once, at startup: the JVM may look its host name up.
	 */
	static String holder() {
		String name = ManagementFactory.getRuntimeMXBean().getName().replaceAll("[^A-Za-z0-9._@-]", "-");
		return name.isEmpty() ? "instance" : name.substring(0, Math.min(60, name.length()));
	}

	/** A plan, or a client's override, may make a limit a concurrency limit. */
	private static boolean anyOtherShape(ConfiguredLimit limit) {
		for (ConfiguredLimit shaped : limit.byClient().values()) {
			if (shaped.concurrency()) {
				return true;
			}
		}
		for (ConfiguredLimit shaped : limit.byPlan().values()) {
			if (shaped.concurrency() || anyOtherShape(shaped)) {
				return true;
			}
		}
		return false;
	}

	/** {@code requests} with the lease {@code id} on their concurrency limits; themselves when {@code id} is null. */
	static List<LimitRequest> withLease(List<LimitRequest> requests, @Nullable String id) {
		if (id == null) {
			return requests;
		}
		List<LimitRequest> leased = new ArrayList<>(requests.size());
		for (LimitRequest request : requests) {
			leased.add(request.withLease(id));
		}
		return leased;
	}

	/** The leases among {@code requests} (sent, perhaps not answered), or {@code null} when none. */
	static Reservation.@Nullable Lease of(String clientKey, List<LimitRequest> requests, boolean local) {
		List<LimitRequest> leases = requests.stream().filter((request) -> request.lease() != null).toList();
		return leases.isEmpty() ? null : new Reservation.Lease(clientKey, leases, local);
	}

	/** The leases an admitting decision took (a shadow limit that denied took none), or {@code null}. */
	static Reservation.@Nullable Lease taken(String clientKey, RateLimitDecision decision, boolean local) {
		if (!decision.allowed()) {
			return null;
		}
		List<LimitRequest> leases = new ArrayList<>();
		for (LimitDecision limit : decision.decisions()) {
			if (limit.allowed() && limit.request().lease() != null) {
				leases.add(limit.request());
			}
		}
		return leases.isEmpty() ? null : new Reservation.Lease(clientKey, leases, local);
	}

	/** The settlements that give {@code lease}'s leases back: an actual cost of 0. */
	static List<Settlement> giveBack(Reservation.Lease lease) {
		return lease.leases().stream().map(Settlement::release).toList();
	}

}
