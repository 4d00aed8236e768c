package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import org.jspecify.annotations.Nullable;

/**
 * What a call's attempts noted for its waits: for a call waiting for a permit of rate limits, its place in the lines
 * ({@link PermitLines}), the denial its line waits on and the room its last admission left; for any call, the
 * concurrency limits that denied it alone or admitted it with room to spare ({@link LeaseWaits}). Each note is taken
 * (read and forgotten) by the wait that follows the attempt. One per call, in its {@link Reservation}; thread-safe.
 */
final class WaitNotes {

	/**
	 * The concurrency limits of one client key that denied an attempt when nothing else did: a release of one of
	 * their leases may admit the next ({@link LeaseWaits}).
	 * @param retryAfterMs the latest of their earliest lease expiries, as the limiter reported them (ms)
	 */
	record LeaseDenial(String clientKey, List<LimitDefinition> limits, long retryAfterMs) {
	}

	/**
	 * The concurrency limits of one client key that admitted an attempt with room left beside its lease: a caller
	 * waiting for one of them may have it ({@link LeaseWaits}).
	 */
	record LeaseRoom(String clientKey, List<LimitDefinition> limits) {
	}

	/**
	 * The rate limits of one client key that denied an attempt of a waiting call: the line it waits in
	 * ({@link PermitLines}).
	 * @param limits the limits decided, with their costs
	 * @param fresh whether Redis denied it just now (not a remembered denial, nor its line's)
	 */
	record RateDenial(String clientKey, List<LimitRequest> limits, RateLimitDecision decision, boolean fresh) {
	}

	/** The place in the lines of a call that waits for a permit; {@code null} for one that does not. */
	private volatile PermitLines.@Nullable Place place;

	private volatile @Nullable RateDenial rateDenial;

	private static final RateLimitDecision.Room NO_ROOM = new RateLimitDecision.Room(0, 0);

	/**
	 * Per client key, what the last admitted attempt left of its rate limits ({@link RateLimitDecision#room()}); waiting
	 * calls only ({@link PermitLines}).
	 */
	private final Map<String, RateLimitDecision.Room> rooms = new ConcurrentHashMap<>(1);

	private volatile @Nullable LeaseDenial leaseDenial;

	private volatile @Nullable LeaseRoom leaseRoom;

	/** The call waits for a permit in {@code place}: its attempts note what its line needs. */
	void waitIn(PermitLines.Place place) {
		this.place = place;
	}

	/**
	 * The line's last denial when this waiting call must wait behind another caller of the same limits and costs
	 * ({@link PermitLines.Place#behind}); {@code null} when it may ask Redis.
	 */
	@Nullable RateLimitDecision behind(String clientKey, List<LimitRequest> limits) {
		PermitLines.Place waiting = this.place;
		return (waiting != null) ? waiting.behind(clientKey, limits) : null;
	}

	/**
	 * An attempt denied at {@code clientKey}: what it may wait for, a lease when only concurrency limits denied it,
	 * else (for a waiting call) its line.
	 * @param fresh whether Redis decided it just now, rather than a remembered denial
	 */
	void denied(String clientKey, List<LimitRequest> limits, RateLimitDecision decision, boolean fresh) {
		List<LimitDefinition> waitedFor = new ArrayList<>(1);
		long retryAfterMs = 0;
		for (LimitDecision limit : decision.decisions()) {
			if (limit.allowed() || limit.request().shadow()) {
				continue;
			}
			if (limit.request().definition().algorithm().rate()) {
				this.leaseDenial = null;
				this.rateDenial = (this.place != null && PermitLines.lined(limits))
						? new RateDenial(clientKey, limits, decision, fresh) : null;
				return;
			}
			waitedFor.add(limit.request().definition());
			retryAfterMs = Math.max(retryAfterMs, limit.retryAfterMs().orElse(0));
		}
		this.rateDenial = null;
		this.leaseDenial = waitedFor.isEmpty() ? null : new LeaseDenial(clientKey, waitedFor, retryAfterMs);
	}

	/**
	 * An attempt admitted at {@code clientKey}: the concurrency limits it took a lease of that have room left, and for
	 * a waiting call the room its rate limits have left ({@link #room}).
	 */
	void admitted(String clientKey, RateLimitDecision decision) {
		List<LimitDefinition> roomy = new ArrayList<>(1);
		for (LimitDecision limit : decision.decisions()) {
			LimitRequest request = limit.request();
			if (limit.allowed() && request.lease() != null && limit.remaining() > 0) {
				roomy.add(request.definition());
			}
		}
		if (!roomy.isEmpty()) {
			this.leaseRoom = new LeaseRoom(clientKey, roomy);
		}
		if (this.place != null) {
			this.rooms.put(clientKey, decision.room());
		}
	}

	/**
	 * What the last admitted attempt at {@code clientKey} left of its rate limits; no room and no wait when it is not
	 * known (a local decision).
	 */
	RateLimitDecision.Room room(String clientKey) {
		return this.rooms.getOrDefault(clientKey, NO_ROOM);
	}

	/** What the last denied attempt of a waiting call waits in line for, forgotten here; {@code null}: no line. */
	@Nullable RateDenial takeRateDenial() {
		RateDenial denial = this.rateDenial;
		this.rateDenial = null;
		return denial;
	}

	/** The room the last admitted attempt left, forgotten here; {@code null} when it left none. */
	@Nullable LeaseRoom takeLeaseRoom() {
		LeaseRoom room = this.leaseRoom;
		this.leaseRoom = null;
		return room;
	}

	/** What the last denied attempt may wait for, forgotten here; {@code null} unless only leases denied it. */
	@Nullable LeaseDenial takeLeaseDenial() {
		LeaseDenial denial = this.leaseDenial;
		this.leaseDenial = null;
		return denial;
	}

}
