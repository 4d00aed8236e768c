package dev.ratelimit.spring.web.reactive;

import dev.ratelimit.spring.web.HttpContract;
import dev.ratelimit.spring.web.InMemoryStore;
import dev.ratelimit.spring.web.SharedRedis;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link HttpContract} and the reactive tests of {@link WebFluxHttpContractIntegrationTests} on WebFlux, with
 * {@code ratelimit.store=in-memory} and no Redis ({@link InMemoryStore}), under BlockHound: decisions in memory, made
 * on an event loop, never block it.
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryWebFluxHttpContractIntegrationTests extends WebFluxHttpContractIntegrationTests implements InMemoryStore {

}
