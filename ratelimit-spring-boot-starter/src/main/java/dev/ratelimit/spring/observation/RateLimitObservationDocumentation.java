package dev.ratelimit.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/** The limiter's observations and their key values, for documentation and for tests. */
public enum RateLimitObservationDocumentation implements ObservationDocumentation {

	/** An operation of the limiter ({@link RateLimitOperation}): its time, and how it ended. */
	OPERATIONS {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultRateLimitObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	};

	/** The low-cardinality key values: one value per configured limit, algorithm and outcome, never per client. */
	public enum LowCardinalityKeyNames implements KeyName {

		/**
		 * What the limiter did: {@code decision}, {@code wait}, {@code settlement}, {@code lease-renewal},
		 * {@code lease-release}.
		 */
		OPERATION {
			@Override
			public String asString() {
				return "operation";
			}
		},

		/** The names of the limits concerned, joined by {@code ,} in the order they were decided. */
		LIMIT {
			@Override
			public String asString() {
				return "limit";
			}
		},

		/** The algorithms of those limits, each once, joined by {@code ,}. */
		ALGORITHM {
			@Override
			public String asString() {
				return "algorithm";
			}
		},

		/**
		 * How it ended: for a decision {@code allowed}, {@code denied}, {@code shadow-denied}, {@code local-allowed},
		 * {@code local-denied}, {@code fail-open}, {@code fail-closed} (the {@code ratelimit.decisions} metric's
		 * outcomes), or {@code remembered-denied}; for the other operations, what {@link RateLimitOperation} lists.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		}

	}

}
