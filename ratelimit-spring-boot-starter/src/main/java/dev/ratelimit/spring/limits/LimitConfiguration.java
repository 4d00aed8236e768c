package dev.ratelimit.spring.limits;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Every limit of the application as one configuration makes them, immutable once built: the resolver of its
 * defaults, plans and overrides, the filter rules, the names, and the annotated methods' limits, resolved when a
 * method is first seen. A request reads one configuration from its first decision to its charge
 * ({@code RequestConfiguration}); a change builds a new one ({@link LimitConfigurations}).
 */
public final class LimitConfiguration {

	private final long version;

	private final LimitResolver resolver;

	private final LimitRegistry names;

	private final FilterRuleMatcher rules;

	/** Each annotated method's limits, by the key its resolver gave, with how to resolve them again. */
	private final Map<Object, Resolved> methods = new ConcurrentHashMap<>();

	/**
	 * @param version 1 for the configuration of startup, then one more for each change on this instance
	 * @param rules the rules of {@code ratelimit.filter.rules}, built with {@code resolver} and registered in
	 * {@code names}
	 */
	LimitConfiguration(long version, LimitResolver resolver, LimitRegistry names, FilterRuleMatcher rules) {
		this.version = version;
		this.resolver = resolver;
		this.names = names;
		this.rules = rules;
	}

	public long version() {
		return this.version;
	}

	public LimitResolver resolver() {
		return this.resolver;
	}

	/** The names of the limits, and each limit once per source. */
	public LimitRegistry names() {
		return this.names;
	}

	public FilterRuleMatcher rules() {
		return this.rules;
	}

	public PlanSelector plans() {
		return this.resolver.plans();
	}

	public LimitOverrides overrides() {
		return this.resolver.overrides();
	}

	/**
	 * The limits of an annotated method in this configuration, resolved by {@code resolve} the first time
	 * {@code key} is asked for, and again by every configuration that follows this one.
	 * @param key the method, as its resolver tells methods apart
	 * @param resolve the method's limits in a configuration; throws {@link IllegalStateException} naming the
	 * method when an annotation is invalid there
	 */
	public List<ConfiguredLimit> methodLimits(Object key, Function<LimitConfiguration, List<ConfiguredLimit>> resolve) {
		Resolved resolved = this.methods.get(key);
		if (resolved == null) {
			resolved = this.methods.computeIfAbsent(key, (ignored) -> new Resolved(resolve, resolve.apply(this)));
		}
		return resolved.limits();
	}

	/**
	 * Resolves in this configuration every method that {@code previous} resolved, so that a change is checked
	 * against every annotation known so far before it applies.
	 * @throws IllegalStateException naming the method whose annotation this configuration makes invalid
	 */
	void resolveMethodsOf(LimitConfiguration previous) {
		previous.methods.forEach((key, resolved) -> methodLimits(key, resolved.resolve()));
	}

	/**
	 * Checks what only the whole configuration can tell: every limit that a plan names exists (at startup, once the
	 * annotations' limits are known too).
	 * @throws InvalidConfigurationPropertyValueException naming the plan's entry
	 */
	public void requireKnownLimits() {
		this.resolver.plans().requireKnownLimits(this.names.names());
	}

	private record Resolved(Function<LimitConfiguration, List<ConfiguredLimit>> resolve, List<ConfiguredLimit> limits) {
	}

}
