package dev.ratelimit.spring.enforce;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * A request's one deadline in the limiter: {@code ratelimit.redis.timeout} from its first decision, kept as a request
 * attribute so that the filter and the advisor, every client key, and a call's admission and charge share it.
 */
public final class RequestDeadline {

	/** Request attribute: the {@link System#nanoTime()} at which the request's time in the limiter is up. */
	private static final String DEADLINE = RequestDeadline.class.getName() + ".deadline";

	/** Request attribute: the nanoseconds that the admission of a call charged by outcome left for its charge. */
	private static final String LEFT_FOR_CHARGE = RequestDeadline.class.getName() + ".leftForCharge";

	private RequestDeadline() {
	}

	/** The request's deadline ({@link System#nanoTime()}), set {@code timeoutNanos} from now at its first decision. */
	static long of(LimitedRequest request, long timeoutNanos) {
		if (request.getAttribute(DEADLINE) instanceof Long deadline) {
			return deadline;
		}
		long deadline = System.nanoTime() + timeoutNanos;
		request.setAttribute(DEADLINE, deadline);
		return deadline;
	}

	/** Keeps what is left of the admitted call's deadline for its charge: the call's own time uses none of it. */
	static void keepForCharge(LimitedRequest admitted, long timeoutNanos) {
		admitted.setAttribute(LEFT_FOR_CHARGE, Math.max(0, of(admitted, timeoutNanos) - System.nanoTime()));
	}

	/** The deadline of a charge after the call: what its admission left, from now. */
	static long forCharge(LimitedRequest request, long timeoutNanos) {
		return System.nanoTime()
				+ ((request.getAttribute(LEFT_FOR_CHARGE) instanceof Long left) ? left : timeoutNanos);
	}

	/**
	 * {@code request} for another decision after a wait for a permit: its own deadline, a full
	 * {@code ratelimit.redis.timeout} (the request's would have passed while it waited, and with it every limit would
	 * follow its failure policy without asking Redis); every other attribute is the request's.
	 */
	public static LimitedRequest anotherAttempt(LimitedRequest request) {
		return new OwnTime(request, Set.of(DEADLINE));
	}

	/**
	 * {@code request} for limits decided apart from its others, before the application's filters run (the rules
	 * charged by outcome, before Spring Security): a deadline and a time kept for the charge of its own, so that the
	 * time the application then takes (authentication, say) is not taken from the decisions that follow. Every other
	 * attribute is the request's.
	 */
	public static LimitedRequest apart(LimitedRequest request) {
		return new OwnTime(request, Set.of(DEADLINE, LEFT_FOR_CHARGE));
	}

	/** A request with the attributes {@code owned} of its own; everything else delegated. */
	private static final class OwnTime implements LimitedRequest {

		private final LimitedRequest request;

		private final Set<String> owned;

		private final Map<String, Object> attributes = new ConcurrentHashMap<>();

		OwnTime(LimitedRequest request, Set<String> owned) {
			this.request = request;
			this.owned = owned;
		}

		@Override
		public @Nullable String remoteAddress() {
			return this.request.remoteAddress();
		}

		@Override
		public @Nullable String path() {
			return this.request.path();
		}

		@Override
		public @Nullable String header(String name) {
			return this.request.header(name);
		}

		@Override
		public @Nullable String queryParameter(String name) {
			return this.request.queryParameter(name);
		}

		@Override
		public @Nullable Object getAttribute(String name) {
			return this.owned.contains(name) ? this.attributes.get(name) : this.request.getAttribute(name);
		}

		@Override
		public void setAttribute(String name, @Nullable Object value) {
			if (!this.owned.contains(name)) {
				this.request.setAttribute(name, value);
			}
			else if (value != null) {
				this.attributes.put(name, value);
			}
			else {
				this.attributes.remove(name);
			}
		}

		@Override
		public void removeAttribute(String name) {
			if (this.owned.contains(name)) {
				this.attributes.remove(name);
			}
			else {
				this.request.removeAttribute(name);
			}
		}

		@Override
		public List<String> responseHeader(String name) {
			return this.request.responseHeader(name);
		}

		@Override
		public void setResponseHeader(String name, String value) {
			this.request.setResponseHeader(name, value);
		}

	}

}
