package dev.ratelimit.spring.autoconfigure;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link HttpContract} and the reactive tests of {@link WebFluxHttpContractTests} on WebFlux, with
 * {@code ratelimit.store=in-memory} and no Redis ({@link InMemoryStore}), under BlockHound: decisions in memory, made
 * on an event loop, never block it.
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryWebFluxHttpContractTests extends WebFluxHttpContractTests implements InMemoryStore {

}
