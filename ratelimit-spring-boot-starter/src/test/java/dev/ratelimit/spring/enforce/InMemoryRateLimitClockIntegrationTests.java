package dev.ratelimit.spring.enforce;

import dev.ratelimit.spring.web.SharedRedis;

import org.springframework.test.context.TestPropertySource;

/** {@link RateLimitClockContract} with {@code ratelimit.store=in-memory} and no Redis. */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryRateLimitClockIntegrationTests extends RateLimitClockContract {

}
