package dev.ratelimit.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The name and key values of the limiter's observations. A bean of this type replaces
 * {@link DefaultRateLimitObservationConvention}; extend that to add key values rather than replace them. Keep every
 * key value low-cardinality: a client key, or anything per client, floods every metrics backend.
 */
public interface RateLimitObservationConvention extends ObservationConvention<RateLimitObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RateLimitObservationContext;
	}

}
