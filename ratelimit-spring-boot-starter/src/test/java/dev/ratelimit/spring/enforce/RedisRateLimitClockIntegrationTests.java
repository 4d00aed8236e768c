package dev.ratelimit.spring.enforce;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link RateLimitClockContract} on the shared test Redis: the starter's limiter decides at the clock's time instead
 * of the server's {@code TIME}, and a reset deletes the keys under this application's prefix only.
 */
@TestPropertySource(properties = "ratelimit.key-prefix=clock-mvc:")
class RedisRateLimitClockIntegrationTests extends RateLimitClockContract {

}
