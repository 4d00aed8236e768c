package dev.ratelimit.spring.actuate.endpoint;

import dev.ratelimit.spring.web.InMemoryStore;
import dev.ratelimit.spring.web.SharedRedis;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link RateLimitsEndpointContract} on Spring MVC, with {@code ratelimit.store=in-memory} and no Redis
 * ({@link InMemoryStore}).
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryMvcRateLimitsEndpointIntegrationTests extends MvcRateLimitsEndpointIntegrationTests
		implements InMemoryStore {

	@Override
	String store() {
		return "in-memory";
	}

}
