package dev.ratelimit.spring.autoconfigure;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link BudgetContract} on WebFlux, with {@code ratelimit.store=in-memory} and no Redis ({@link InMemoryStore}), under
 * BlockHound.
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryWebFluxBudgetTests extends WebFluxBudgetTests implements InMemoryStore {

}
