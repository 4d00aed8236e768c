package dev.ratelimit.spring.autoconfigure;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link RateLimitsEndpointContract} on Spring MVC, with {@code ratelimit.store=in-memory} and no Redis
 * ({@link InMemoryStore}).
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryMvcRateLimitsEndpointTests extends MvcRateLimitsEndpointTests implements InMemoryStore {

	@Override
	String store() {
		return "in-memory";
	}

}
