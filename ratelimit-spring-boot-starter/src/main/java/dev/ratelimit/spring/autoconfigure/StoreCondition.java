package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.autoconfigure.RateLimitProperties.Store;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches the configured {@code ratelimit.store}, bound as the property is (so {@code in-memory}, {@code IN_MEMORY}
 * and {@code in_memory} are one value). An unknown value fails the binding, which stops startup naming the property
 * and the valid values: a store that matched no configuration would leave the application unlimited.
 */
public abstract class StoreCondition extends SpringBootCondition {

	private final Store store;

	StoreCondition(Store store) {
		this.store = store;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Store configured = configured(context.getEnvironment());
		return (configured == this.store) ? ConditionOutcome.match("ratelimit.store is " + configured)
				: ConditionOutcome.noMatch("ratelimit.store is " + configured);
	}

	/** The configured store, as the conditions bind it; also what an application processed ahead of time recorded. */
	public static Store configured(Environment environment) {
		return Binder.get(environment).bind("ratelimit.store", Store.class).orElse(Store.REDIS);
	}

	/** {@code ratelimit.store=redis}, the default. */
	public static final class OnRedis extends StoreCondition {

		OnRedis() {
			super(Store.REDIS);
		}

	}

	/** {@code ratelimit.store=in-memory}. */
	public static final class OnInMemory extends StoreCondition {

		OnInMemory() {
			super(Store.IN_MEMORY);
		}

	}

}
