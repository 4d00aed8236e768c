package dev.ratelimit.spring.web;

import java.net.ConnectException;
import java.net.Socket;

import dev.ratelimit.core.InMemoryRateLimiter;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import org.junit.jupiter.api.Test;

import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A shared HTTP contract run once more with {@code ratelimit.store=in-memory} and no Redis: the application's
 * {@code spring.data.redis.url} points at a port where nothing listens ({@link SharedRedis#CLOSED_URL}), so a limit
 * that asked Redis would fail open and the contract's exact numbers would not hold.
 */
public interface InMemoryStore {

	@Test
	default void limitsAreCountedInMemoryWithoutAnyRedis(ApplicationContext context) {
		assertThat(context.getBean(RateLimiter.class)).isInstanceOf(InMemoryRateLimiter.class);
		assertThat(context.getBeanNamesForType(ScriptExecutor.class)).isEmpty();
		assertThat(context.getEnvironment().getProperty("spring.data.redis.url")).isEqualTo("redis://127.0.0.1:1");
		assertThatExceptionOfType(ConnectException.class).as("nothing listens at spring.data.redis.url")
			.isThrownBy(() -> new Socket("127.0.0.1", 1).close());
	}

}
