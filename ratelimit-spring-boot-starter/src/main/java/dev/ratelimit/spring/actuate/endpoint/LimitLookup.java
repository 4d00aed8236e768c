package dev.ratelimit.spring.actuate.endpoint;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.LimitConfiguration;
import dev.ratelimit.spring.limits.LimitRegistry;
import dev.ratelimit.spring.limits.PlanSelector;
import org.jspecify.annotations.Nullable;

/** The limits of the application as the endpoint finds them: by the name in its path, with every shape and cost. */
final class LimitLookup {

	private final LimitRegistry names;

	private final PlanSelector plans;

	/** The limits of {@code configuration}: one configuration for all that one operation reads. */
	LimitLookup(LimitConfiguration configuration) {
		this.names = configuration.names();
		this.plans = configuration.plans();
	}

	PlanSelector plans() {
		return this.plans;
	}

	List<ConfiguredLimit> all() {
		return this.names.all();
	}

	/**
	 * The limit's name from the path's segments: a name with slashes (a rule named after its path, {@code /api/**})
	 * spans several segments, and its leading slash is the one before them.
	 */
	String name(String[] segments) {
		String joined = String.join("/", segments);
		if (!known(joined) && known("/" + joined)) {
			return "/" + joined;
		}
		return joined;
	}

	boolean known(String name) {
		return this.names.all().stream().anyMatch((limit) -> limit.name().equals(name));
	}

	/** Every limit's name, sorted, for the message of a 404. */
	String knownNames() {
		return String.join(", ", new TreeSet<>(this.names.all().stream().map(ConfiguredLimit::name).toList()));
	}

	/**
	 * Every shape the limit {@code name} can have (a peek's cost is that of the request asked about), and the plan
	 * that gives it ({@code null}: the limit's own).
	 */
	Map<LimitDefinition, @Nullable String> shapesOf(String name) {
		return shapesOf(name, null);
	}

	/**
	 * {@link #shapesOf(String)} as the overrides of the client {@code clientKey} ({@code null}: none) shape them: the
	 * shapes that client's requests are decided in.
	 */
	Map<LimitDefinition, @Nullable String> shapesOf(String name, @Nullable String clientKey) {
		Map<LimitDefinition, @Nullable String> shapes = new LinkedHashMap<>();
		for (ConfiguredLimit limit : this.names.all()) {
			if (limit.name().equals(name)) {
				for (ConfiguredLimit shaped : shapes(limit)) {
					ConfiguredLimit client = (clientKey != null) ? shaped.forClient(clientKey) : shaped;
					shapes.putIfAbsent(client.request().definition(), shaped.plan());
				}
			}
		}
		return shapes;
	}

	/** Whether a plan shapes the limit {@code name}. */
	boolean planned(String name) {
		return this.names.all().stream().anyMatch((limit) -> limit.name().equals(name) && limit.planned());
	}

	/** The costs that the limit's sources configure, smallest first. */
	List<Long> costsOf(String name) {
		return this.names.all()
			.stream()
			.filter((limit) -> limit.name().equals(name))
			.map((limit) -> limit.request().cost())
			.distinct()
			.sorted()
			.toList();
	}

	/** Whether the limit {@code name} is in shadow mode (limits of one name agree: {@code LimitRegistry}). */
	boolean shadow(String name) {
		return this.names.all().stream().anyMatch((limit) -> limit.name().equals(name) && limit.shadow());
	}

	/** A token bucket's capacity; {@code null} for the other algorithms, which have none. */
	static @Nullable Long capacity(LimitDefinition definition) {
		return (definition.algorithm() == Algorithm.TOKEN_BUCKET) ? definition.capacity() : null;
	}

	/** The limit as each plan shapes it, in the plans' order; the limit itself when it is not planned. */
	List<ConfiguredLimit> shapes(ConfiguredLimit limit) {
		if (!limit.planned()) {
			return List.of(limit);
		}
		return this.plans.names().stream().map((plan) -> limit.byPlan().get(plan)).toList();
	}

}
