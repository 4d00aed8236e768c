package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.web.HttpContract;
import dev.ratelimit.spring.web.InMemoryStore;
import dev.ratelimit.spring.web.SharedRedis;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link HttpContract} and the dispatch tests of {@link MvcHttpContractIntegrationTests} on Spring MVC, with
 * {@code ratelimit.store=in-memory} and no Redis ({@link InMemoryStore}).
 */
@TestPropertySource(properties = { "ratelimit.store=in-memory", SharedRedis.CLOSED_URL })
class InMemoryMvcHttpContractIntegrationTests extends MvcHttpContractIntegrationTests implements InMemoryStore {

}
