package dev.ratelimit.sample;

import dev.ratelimit.spring.autoconfigure.RateLimitProperties;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Whether the limits are counted in this instance's memory: {@code ratelimit.store=in-memory}, bound as the starter
 * binds it ({@code in-memory}, {@code IN_MEMORY} and {@code in_memory} are one value). Then the sample needs no Redis
 * at all: {@link EmbeddedRedisListener} starts none, and {@code --compare} reads and removes no keys.
 */
final class InMemoryStore {

	private InMemoryStore() {
	}

	/**
	 * @throws org.springframework.boot.context.properties.bind.BindException when {@code ratelimit.store} has a value
	 * that is no store (as the starter would, naming the property and the valid values)
	 */
	static boolean isSelected(Environment environment) {
		return Binder.get(environment)
			.bind("ratelimit.store", RateLimitProperties.Store.class)
			.map((store) -> store == RateLimitProperties.Store.IN_MEMORY)
			.orElse(false);
	}

}
