package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.web.InMemoryStore;
import dev.ratelimit.spring.web.PlansAndShadowContract;
import dev.ratelimit.spring.web.SharedRedis;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link PlansAndShadowContract} on Spring MVC, with {@code ratelimit.store=in-memory} and no Redis
 * ({@link InMemoryStore}).
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryMvcPlansAndShadowIntegrationTests extends MvcPlansAndShadowIntegrationTests implements InMemoryStore {

}
