package dev.ratelimit.spring.web;

import dev.ratelimit.test.TestRedis;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The shared test Redis of the HTTP contracts ({@link HttpContract}, {@link ServerTestSupport}). Their
 * {@code @TestPropertySource} sets {@code spring.data.redis.url} to {@link #URL}, which reads the server's address
 * from a dynamic property: a dynamic property would win over any {@code @TestPropertySource}, so a subclass could
 * not point {@code spring.data.redis.url} elsewhere, as the in-memory ones do (at a closed port, to show that nothing
 * talks to Redis). The shared server is started only when the address is read.
 */
public final class SharedRedis {

	/** {@code spring.data.redis.url}: the shared server's, unless a subclass sets it. */
	static final String URL = "spring.data.redis.url=${test.shared-redis.url}";

	/** {@code spring.data.redis.url} where nothing listens, for contracts that must not talk to Redis. */
	public static final String CLOSED_URL = "spring.data.redis.url=redis://127.0.0.1:1";

	private SharedRedis() {
	}

	static void register(DynamicPropertyRegistry registry) {
		registry.add("test.shared-redis.url", () -> TestRedis.shared().url());
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		registry.add("ratelimit.redis.timeout", () -> "10s");
	}

}
