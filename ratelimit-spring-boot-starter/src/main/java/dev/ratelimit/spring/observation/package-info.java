/**
 * The limiter's work as Micrometer {@code Observation}s, when the application has an {@code ObservationRegistry}: one
 * {@code ratelimit.operations} observation per decision (one call to Redis, or a denial remembered, or a failure
 * policy applied), per wait for a permit, per settlement after a call, and per lease renewed or given back
 * ({@link dev.ratelimit.spring.observation.RateLimitOperation}), so that with Micrometer Tracing the limiter is a
 * span under the request's. The key values are
 * low-cardinality only (the limits' names, their algorithms, the outcome), never a client key;
 * {@link dev.ratelimit.spring.observation.RateLimitObservationConvention} replaces the default convention.
 */
@NullMarked
package dev.ratelimit.spring.observation;

import org.jspecify.annotations.NullMarked;
