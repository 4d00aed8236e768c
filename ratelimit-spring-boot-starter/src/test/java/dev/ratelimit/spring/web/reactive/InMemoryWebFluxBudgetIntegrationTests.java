package dev.ratelimit.spring.web.reactive;

import dev.ratelimit.spring.web.BudgetContract;
import dev.ratelimit.spring.web.InMemoryStore;
import dev.ratelimit.spring.web.SharedRedis;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link BudgetContract} on WebFlux, with {@code ratelimit.store=in-memory} and no Redis ({@link InMemoryStore}), under
 * BlockHound.
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryWebFluxBudgetIntegrationTests extends WebFluxBudgetIntegrationTests implements InMemoryStore {

}
