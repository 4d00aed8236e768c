package dev.ratelimit.core;

/**
 * A lease held of a concurrency limit ({@link Algorithm#CONCURRENCY}): what {@link RateLimiter#leases} lists for an
 * operator.
 *
 * @param id the lease id its caller made ({@link LimitRequest#lease()})
 * @param expiresAfterMs ms until it expires unless its holder renews or gives it back; at least 1
 */
public record HeldLease(String id, long expiresAfterMs) {
}
