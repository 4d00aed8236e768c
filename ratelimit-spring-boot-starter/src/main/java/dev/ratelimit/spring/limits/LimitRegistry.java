package dev.ratelimit.spring.limits;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;

/**
 * Makes sure that one name means one budget. Limits with the same name share their Redis state per client, which is
 * how two endpoints draw on one bucket; that only works when they agree on algorithm, limit, window, capacity, mode and usage,
 * and it must be asked for by name, never happen because two methods derive the same default name.
 */
public final class LimitRegistry {

	private final Map<String, ConfiguredLimit> byName = new ConcurrentHashMap<>();

	/** Every limit registered, once per source and name. */
	private final Map<String, ConfiguredLimit> bySource = new ConcurrentHashMap<>();

	/**
	 * The names of every limit registered so far: the filter rules' at startup, the annotations' once every singleton
	 * is instantiated (and those of lazy beans when first called).
	 */
	public Set<String> names() {
		return Set.copyOf(this.byName.keySet());
	}

	/**
	 * Every limit registered so far, as {@link #names()} says, once per source and name (a class's limits are
	 * registered for each of its methods), ordered by name, then source.
	 */
	public List<ConfiguredLimit> all() {
		return this.bySource.values()
			.stream()
			.sorted(Comparator.comparing(ConfiguredLimit::name).thenComparing(ConfiguredLimit::source))
			.toList();
	}

	/**
	 * @return {@code limit}
	 * @throws IllegalStateException naming both sources when the names clash
	 */
	public ConfiguredLimit register(ConfiguredLimit limit) {
		check(limit);
		this.bySource.putIfAbsent(limit.source() + "\n" + limit.name(), limit);
		return limit;
	}

	private void check(ConfiguredLimit limit) {
		ConfiguredLimit first = this.byName.putIfAbsent(limit.name(), limit);
		if (first == null) {
			return;
		}
		if (isRule(first) != isRule(limit) && (first.readsArguments() || limit.readsArguments())) {
			// The annotation is decided when its method is called, apart from the rule: not all or nothing.
			throw new IllegalStateException("Rate limits of " + first.source() + " and " + limit.source()
					+ " both have the name '" + limit.name() + "'; an annotation whose key reads the method's"
					+ " arguments is decided apart from the filter rules, so it needs a name of its own");
		}
		boolean sameSource = first.source().equals(limit.source());
		if (!sameSource && (!first.explicitName() || !limit.explicitName())) {
			throw new IllegalStateException("Rate limits of " + first.source() + " and " + limit.source()
					+ " both get the name '" + limit.name() + "'; give them distinct names, or the same name on purpose to share a budget");
		}
		LimitDefinition a = first.request().definition();
		LimitDefinition b = limit.request().definition();
		if (a.algorithm() != b.algorithm() || a.limit() != b.limit() || !a.window().equals(b.window())
				|| a.capacity() != b.capacity() || first.shadow() != limit.shadow()
				|| !Objects.equals(a.usage(), b.usage())) {
			throw new IllegalStateException("Rate limits named '" + limit.name() + "' share a budget but differ: "
					+ first.source() + " has " + describe(first.request()) + ", " + limit.source() + " has "
					+ describe(limit.request()));
		}
	}

	private static boolean isRule(ConfiguredLimit limit) {
		return limit.source().startsWith("ratelimit.filter.rules[");
	}

	private static String describe(LimitRequest request) {
		LimitDefinition limit = request.definition();
		return limit.algorithm() + " " + limit.limit() + " per " + limit.window() + " (capacity " + limit.capacity() + ")"
				+ (request.shadow() ? " in shadow mode" : "")
				+ ((limit.usage() != null) ? ", usage per " + limit.usage().period() : "");
	}

}
