package dev.ratelimit.spring.autoconfigure;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link HttpContract} and the dispatch tests of {@link MvcHttpContractTests} on Spring MVC, with
 * {@code ratelimit.store=in-memory} and no Redis ({@link InMemoryStore}).
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryMvcHttpContractTests extends MvcHttpContractTests implements InMemoryStore {

}
