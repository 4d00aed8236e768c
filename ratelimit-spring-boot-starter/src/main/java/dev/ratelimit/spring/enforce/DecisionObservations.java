package dev.ratelimit.spring.enforce;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.Terms;
import dev.ratelimit.spring.observation.DefaultRateLimitObservationConvention;
import dev.ratelimit.spring.observation.RateLimitObservationContext;
import dev.ratelimit.spring.observation.RateLimitObservationConvention;
import dev.ratelimit.spring.observation.RateLimitObservationDocumentation;
import dev.ratelimit.spring.observation.RateLimitOperation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The decisions' Micrometer observations ({@code ratelimit.operations}), when the application has an
 * {@link ObservationRegistry}; {@link #NONE} without one, which creates nothing at all.
 *
 * <p>
 * An observation's parent is the request's (or the call's) observation, found once when its decision starts: the one
 * a caller left in the request's attribute {@link #PARENT} (WebFlux's, read from the Reactor context, where Spring
 * Framework puts it), else the registry's current one (Spring MVC's request thread, the thread of a call outside a
 * request). Found there rather than where Redis answers, since a later key's decision may start on the Redis client's
 * thread, where no scope of the request is open.
 */
public final class DecisionObservations {

	/** The request attribute of the observation a caller found for it: a parent that no thread-local holds. */
	public static final String PARENT = DecisionObservations.class.getName() + ".parent";

	/**
	 * Where the Reactor context holds the current observation: Micrometer's
	 * {@code ObservationThreadLocalAccessor.KEY}, named here so that reading it loads no context-propagation class.
	 */
	public static final String REACTOR_CONTEXT_KEY = "micrometer.observation";

	/** No registry: no observation, no context, nothing looked up. */
	public static final DecisionObservations NONE = new DecisionObservations(ObservationRegistry.NOOP, null);

	private static final DefaultRateLimitObservationConvention DEFAULT_CONVENTION = new DefaultRateLimitObservationConvention();

	/** The algorithms' key values ({@code token-bucket}), written once rather than for every observation. */
	private static final EnumMap<Algorithm, String> ALGORITHMS = new EnumMap<>(Algorithm.class);

	static {
		for (Algorithm algorithm : Algorithm.values()) {
			ALGORITHMS.put(algorithm, Terms.of(algorithm));
		}
	}

	private final ObservationRegistry registry;

	private final @Nullable RateLimitObservationConvention convention;

	/**
	 * @param registry the application's registry
	 * @param convention the application's convention, or {@code null} for {@link DefaultRateLimitObservationConvention}
	 */
	public DecisionObservations(ObservationRegistry registry, @Nullable RateLimitObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	/** Whether decisions are observed: false without a registry, or with a no-op one. */
	public boolean enabled() {
		return !this.registry.isNoop();
	}

	/**
	 * Keeps {@code found} (an observation a caller found where no thread-local holds it: WebFlux's, in the Reactor
	 * context under {@link #REACTOR_CONTEXT_KEY}) as the one {@code request}'s observations go under; nothing when
	 * decisions are not observed or {@code found} is not an observation.
	 */
	public void parentFound(LimitedRequest request, @Nullable Object found) {
		if (enabled() && found instanceof Observation) {
			request.setAttribute(PARENT, found);
		}
	}

	/** The observation the decisions of {@code request} go under, or {@code null}. */
	@Nullable Observation parent(LimitedRequest request) {
		if (!enabled()) {
			return null;
		}
		return (request.getAttribute(PARENT) instanceof Observation found) ? found
				: this.registry.getCurrentObservation();
	}

	/** The observation of one client key's decision, started. */
	Observed decision(@Nullable Observation parent, List<ConfiguredLimit> limits) {
		return started(RateLimitOperation.DECISION, parent, requests(limits));
	}

	/**
	 * The observation of a call's wait, started, with the request's later decisions under it: until it is stopped,
	 * it is the request's {@link #PARENT}.
	 */
	Observed waiting(LimitedRequest request, List<ConfiguredLimit> limits) {
		Observed observed = started(RateLimitOperation.WAIT, parent(request), requests(limits));
		if (observed.context != null) {
			observed.nested(request);
		}
		return observed;
	}

	/** The observation of one client key's charge or settlement after the call, started. */
	Observed settlement(LimitedRequest request, List<ConfiguredLimit> limits) {
		return started(RateLimitOperation.SETTLEMENT, parent(request), requests(limits));
	}

	/**
	 * The observation of a lease's renewal (no parent: it runs apart from any request) or release (under the
	 * observation current where the call ended), started.
	 */
	Observed lease(RateLimitOperation operation, List<LimitRequest> leases) {
		if (!enabled()) {
			return Observed.NONE;
		}
		return started(operation,
				(operation == RateLimitOperation.LEASE_RELEASE) ? this.registry.getCurrentObservation() : null, leases);
	}

	/** The limits' requests; {@code started} looks at them only when decisions are observed. */
	private List<LimitRequest> requests(List<ConfiguredLimit> limits) {
		if (!enabled()) {
			return List.of();
		}
		List<LimitRequest> requests = new ArrayList<>(limits.size());
		for (ConfiguredLimit limit : limits) {
			requests.add(limit.request());
		}
		return requests;
	}

	private Observed started(RateLimitOperation operation, @Nullable Observation parent, List<LimitRequest> limits) {
		if (!enabled()) {
			return Observed.NONE;
		}
		RateLimitObservationContext context = (limits.size() == 1) ? single(operation, limits.get(0))
				: new RateLimitObservationContext(operation, names(limits), algorithms(limits));
		Observation observation = RateLimitObservationDocumentation.OPERATIONS.observation(this.convention,
				DEFAULT_CONVENTION, () -> context, this.registry);
		if (parent == null) {
			return new Observed(observation.start(), context);
		}
		observation.parentObservation(parent);
		Observation current = this.registry.getCurrentObservation();
		if (current == null || current == parent) {
			return new Observed(observation.start(), context);
		}
		// Another observation is current on this thread (the caller's, around a wait): tracing handlers take the
		// current span as the parent's, so the parent is made current while this one starts.
		try (Observation.Scope scope = parent.openScope()) {
			return new Observed(observation.start(), context);
		}
	}

	/** The context of one limit's operation (most are): immutable lists, which the context keeps rather than copies. */
	private static RateLimitObservationContext single(RateLimitOperation operation, LimitRequest limit) {
		return new RateLimitObservationContext(operation, List.of(limit.name()),
				List.of(ALGORITHMS.get(limit.definition().algorithm())));
	}

	private static List<String> names(List<LimitRequest> limits) {
		List<String> names = new ArrayList<>(limits.size());
		for (LimitRequest limit : limits) {
			names.add(limit.name());
		}
		return names;
	}

	/** Each algorithm once, in the order of the limits. */
	private static List<String> algorithms(List<LimitRequest> limits) {
		List<String> algorithms = new ArrayList<>(1);
		for (LimitRequest limit : limits) {
			String algorithm = ALGORITHMS.get(limit.definition().algorithm());
			if (!algorithms.contains(algorithm)) {
				algorithms.add(algorithm);
			}
		}
		return algorithms;
	}

	/** A started observation, stopped with its outcome once. */
	static final class Observed {

		static final Observed NONE = new Observed(Observation.NOOP, null);

		private final Observation observation;

		private final @Nullable RateLimitObservationContext context;

		/** The request whose {@link #PARENT} this observation is while it runs, or {@code null}. */
		private @Nullable LimitedRequest request;

		private @Nullable Object previousParent;

		private Observed(Observation observation, @Nullable RateLimitObservationContext context) {
			this.observation = observation;
			this.context = context;
		}

		/** A scope for the call to Redis, so that a Redis client's own observation of it goes under this one. */
		Observation.Scope openScope() {
			return this.observation.openScope();
		}

		/**
		 * Redis failed or was late: on the observation as its error, before the failure policy's outcome; the cause
		 * itself, not the {@link CompletionException} a stage wraps it in (the timer's {@code error} tag names it).
		 */
		void error(Throwable failure) {
			Throwable cause = failure;
			while ((cause instanceof CompletionException || cause instanceof ExecutionException)
					&& cause.getCause() != null) {
				cause = cause.getCause();
			}
			this.observation.error(cause);
		}

		void stop(String outcome) {
			if (this.context != null) {
				this.context.setOutcome(outcome);
				this.observation.stop();
				if (this.request != null) {
					// the request's parent again, as it was before this observation nested its decisions
					if (this.previousParent != null) {
						this.request.setAttribute(PARENT, this.previousParent);
					}
					else {
						this.request.removeAttribute(PARENT);
					}
				}
			}
		}

		/** The request's decisions go under this observation until it stops. */
		private void nested(LimitedRequest request) {
			this.request = request;
			this.previousParent = request.getAttribute(PARENT);
			request.setAttribute(PARENT, this.observation);
		}

	}

}
