package dev.ratelimit.sample;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.bootstrap.DefaultBootstrapContext;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Redis {@link EmbeddedRedisListener} gives the application when none is configured: an embedded server with
 * the Redis store, none with the in-memory store, however {@code ratelimit.store} is spelt.
 */
class EmbeddedRedisListenerTest {

	@ParameterizedTest
	@ValueSource(strings = { "in-memory", "IN_MEMORY", "in_memory", "In-Memory" })
	void startsNoServerForTheInMemoryStore(String store) {
		MockEnvironment environment = new MockEnvironment().withProperty("ratelimit.store", store);
		EmbeddedRedisListener listener = new EmbeddedRedisListener();
		try {
			listener.onApplicationEvent(environmentPrepared(environment));

			assertThat(environment.getProperty(EmbeddedRedisListener.EMBEDDED_PORT_PROPERTY)).isNull();
			assertThat(environment.getProperty("spring.data.redis.port")).isNull();
		}
		finally {
			closed(listener);
		}
	}

	/** The control: with nothing configured, the Redis store gets its embedded server, and the property says so. */
	@Test
	void startsAServerForTheRedisStore() {
		MockEnvironment environment = new MockEnvironment();
		EmbeddedRedisListener listener = new EmbeddedRedisListener();
		try {
			listener.onApplicationEvent(environmentPrepared(environment));

			String port = environment.getProperty(EmbeddedRedisListener.EMBEDDED_PORT_PROPERTY);
			assertThat(port).isNotNull();
			assertThat(environment.getProperty("spring.data.redis.port")).isEqualTo(port);
		}
		finally {
			closed(listener);
		}
	}

	private static ApplicationEnvironmentPreparedEvent environmentPrepared(MockEnvironment environment) {
		return new ApplicationEnvironmentPreparedEvent(new DefaultBootstrapContext(), new SpringApplication(),
				new String[0], environment);
	}

	/** Stops the server, if one was started, as the end of the application would. */
	private static void closed(EmbeddedRedisListener listener) {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			listener.onApplicationEvent(new ContextClosedEvent(context));
		}
	}

}
