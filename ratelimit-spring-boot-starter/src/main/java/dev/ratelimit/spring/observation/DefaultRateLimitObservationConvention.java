package dev.ratelimit.spring.observation;

import io.micrometer.common.KeyValues;

import dev.ratelimit.spring.observation.RateLimitObservationDocumentation.LowCardinalityKeyNames;

/**
 * The limiter's observations as documented ({@link RateLimitObservationDocumentation}): named
 * {@value #NAME}, a span named {@code ratelimit <operation>}, and the key values {@code operation}, {@code limit} (the
 * limits' names joined by {@code ,}), {@code algorithm} (their algorithms, joined alike) and {@code outcome}
 * ({@code none} until there is one).
 */
public class DefaultRateLimitObservationConvention implements RateLimitObservationConvention {

	/**
	 * The observations' name: with Spring Boot's meter handler a timer of that name, distinct from the
	 * {@code ratelimit.decisions} counter.
	 */
	public static final String NAME = "ratelimit.operations";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RateLimitObservationContext context) {
		return "ratelimit " + context.getOperation().value();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RateLimitObservationContext context) {
		String outcome = context.getOutcome();
		return KeyValues.of(LowCardinalityKeyNames.OPERATION.withValue(context.getOperation().value()),
				LowCardinalityKeyNames.LIMIT.withValue(context.joinedLimits()),
				LowCardinalityKeyNames.ALGORITHM.withValue(context.joinedAlgorithms()),
				LowCardinalityKeyNames.OUTCOME.withValue((outcome != null) ? outcome : "none"));
	}

}
