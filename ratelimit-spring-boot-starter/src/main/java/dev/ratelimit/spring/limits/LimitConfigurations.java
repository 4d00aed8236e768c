package dev.ratelimit.spring.limits;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import dev.ratelimit.core.LimitDefinition;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.env.Environment;

/**
 * The limits in force, and their changes at runtime: a change of {@code ratelimit.*} in the environment (Spring
 * Cloud's refresh), or of the overrides an operator sets through the {@code ratelimits} endpoint. Each change
 * builds a whole new {@link LimitConfiguration} from a fresh binding of {@code ratelimit.*} and the overrides, checks
 * it as startup checks the configuration (every annotation known so far resolved again), and only then puts it in
 * force in one step; an invalid change throws, naming the property or the method, and the limits stay as they were.
 * Requests that started under the previous configuration finish under it.
 */
public final class LimitConfigurations {

	private static final Log logger = LogFactory.getLog(LimitConfigurations.class);

	private final Supplier<Settings> binding;

	private final Environment environment;

	private final BeanFactory beanFactory;

	private final List<Listener> listeners = new CopyOnWriteArrayList<>();

	private final @Nullable RequestStack stack;

	/** The settings in force; written under this object's lock. */
	private Settings settings;

	private volatile LimitConfiguration current;

	/**
	 * @param binding a fresh binding of {@code ratelimit.*}, for startup and for each change of the environment
	 * @param environment resolves placeholders in annotation attributes
	 * @param beanFactory for the bean references of expressions
	 * @param stack the application's web stack, whose {@code #request} key expressions are checked against; null
	 * outside a web application
	 * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException naming the
	 * property when the configuration is invalid
	 */
	public LimitConfigurations(Supplier<Settings> binding, Environment environment, BeanFactory beanFactory,
			@Nullable RequestStack stack) {
		this.binding = binding;
		this.environment = environment;
		this.beanFactory = beanFactory;
		this.stack = stack;
		this.settings = binding.get();
		this.current = assemble(1, this.settings, LimitOverrides.NONE, null);
	}

	/** The configuration in force; a request keeps the one it first read ({@code RequestConfiguration}). */
	public LimitConfiguration current() {
		return this.current;
	}

	/** Tells {@code listener} of every change applied or refused. */
	public void addListener(Listener listener) {
		this.listeners.add(listener);
	}

	/**
	 * Puts {@code overrides} in force, in place of the overrides in force. Overrides of limits or plans that the
	 * configuration does not have (any more), and overrides that would make a limit invalid here (stored by another
	 * version of the application, say), are left aside one by one, with a warning: one of them never holds back the
	 * others. The endpoint {@link #check checks} a new override strictly before it is stored.
	 * @param source what changed them, for the log and the metrics: {@code endpoint}, {@code store}
	 * @return the configuration now in force
	 */
	public synchronized LimitConfiguration override(LimitOverrides overrides, String source) {
		if (overrides.equals(this.current.overrides())) {
			return this.current;
		}
		return apply(this.settings, overrides, source);
	}

	/**
	 * Builds the configuration that {@code overrides} would make, without putting it in force.
	 * @throws RuntimeException naming the property or the method when the overrides make a limit invalid
	 */
	public synchronized LimitConfiguration check(LimitOverrides overrides) {
		return build(this.settings, overrides);
	}

	/**
	 * Binds {@code ratelimit.*} again and puts the limits it makes in force, with the overrides in force (those that
	 * the new configuration makes invalid left aside, as {@link #override} leaves them).
	 * @return the configuration now in force
	 * @throws RuntimeException naming the property or the method when the new configuration is invalid: nothing
	 * changes then
	 */
	public synchronized LimitConfiguration environmentChanged() {
		Settings settings;
		try {
			settings = this.binding.get();
		}
		catch (RuntimeException ex) {
			this.listeners.forEach((listener) -> listener.refused("environment", ex));
			throw ex;
		}
		try {
			// as startup checks application.yml: without the overrides, which an undo may remove at any time
			build(settings, LimitOverrides.NONE);
		}
		catch (RuntimeException ex) {
			this.listeners.forEach((listener) -> listener.refused("environment", ex));
			throw ex;
		}
		return apply(settings, this.current.overrides(), "environment");
	}

	private LimitConfiguration apply(Settings settings, LimitOverrides overrides, String source) {
		LimitConfiguration previous = this.current;
		LimitConfiguration next;
		try {
			next = buildKeepingValid(settings, overrides);
		}
		catch (RuntimeException ex) {
			this.listeners.forEach((listener) -> listener.refused(source, ex));
			throw ex;
		}
		this.settings = settings;
		this.current = next;
		List<String> changes = changes(previous, next);
		logger.info("Rate limits changed by " + source + " (configuration " + next.version() + "): "
				+ (changes.isEmpty() ? "no limit changed" : String.join("; ", changes)));
		this.listeners.forEach((listener) -> listener.applied(source, previous, next));
		return next;
	}

	/**
	 * The configuration of {@code settings} with every override of {@code overrides} that is valid there: all of
	 * them, or, when together they make a limit invalid, each that is valid added one by one.
	 * @throws RuntimeException when {@code settings} themselves make a limit invalid
	 */
	private LimitConfiguration buildKeepingValid(Settings settings, LimitOverrides overrides) {
		try {
			return build(settings, overrides);
		}
		catch (RuntimeException whole) {
			LimitConfiguration kept = build(settings, LimitOverrides.NONE);
			LimitOverrides valid = LimitOverrides.NONE;
			for (Map.Entry<String, String> field : overrides.fields().entrySet()) {
				LimitOverrides attempt = valid.with(LimitOverrides.of(Map.of(field.getKey(), field.getValue())));
				try {
					kept = build(settings, attempt);
					valid = attempt;
				}
				catch (RuntimeException ex) {
					logger.warn("The override " + field.getKey().replace('\t', ' ') + " (" + field.getValue()
							+ ") is left aside: " + ex.getMessage() + " (undo it through the ratelimits endpoint)");
				}
			}
			return kept;
		}
	}

	/** The configuration of {@code settings} and {@code overrides}, checked whole. */
	private LimitConfiguration build(Settings settings, LimitOverrides overrides) {
		LimitConfiguration previous = this.current;
		LimitConfiguration next = assemble(previous.version() + 1, settings, overrides, previous);
		LimitOverrides known = known(next, overrides, settings);
		if (!known.equals(overrides)) {
			next = assemble(previous.version() + 1, settings, known, previous);
		}
		next.requireKnownLimits();
		return next;
	}

	/**
	 * The configuration of {@code settings} and {@code overrides}, its rules built and the annotated methods of
	 * {@code previous} resolved in it.
	 */
	private LimitConfiguration assemble(long version, Settings settings, LimitOverrides overrides,
			@Nullable LimitConfiguration previous) {
		LimitResolver resolver = new LimitResolver(settings.limits(), overrides, settings.failLocalInstances(),
				this.environment, this.beanFactory, this.stack);
		LimitRegistry names = new LimitRegistry();
		FilterRuleMatcher rules = FilterRuleMatcher.of(settings.rules(), resolver, names);
		LimitConfiguration configuration = new LimitConfiguration(version, resolver, names, rules);
		if (previous != null) {
			configuration.resolveMethodsOf(previous);
		}
		return configuration;
	}

	/**
	 * {@code overrides} without those of limits and plans that {@code configuration} does not have, nor those of a
	 * client in a plan of a limit that no plan shapes.
	 */
	private static LimitOverrides known(LimitConfiguration configuration, LimitOverrides overrides, Settings settings) {
		LimitOverrides known = overrides;
		for (OverrideTarget target : overrides.targets().keySet()) {
			String unknown = unknown(configuration, target, settings);
			if (unknown != null) {
				logger.warn("The override of rate limit '" + target.name() + "'"
						+ ((target.plan() != null) ? " in plan '" + target.plan() + "'" : "")
						+ ((target.clientTag() != null) ? " for client " + target.clientTag() : "") + " is left aside: "
						+ unknown + " (undo it through the ratelimits endpoint)");
				known = known.with(target, null);
			}
		}
		return known;
	}

	/** Why {@code configuration} cannot apply the override of {@code target}, or {@code null} when it can. */
	private static @Nullable String unknown(LimitConfiguration configuration, OverrideTarget target,
			Settings settings) {
		if (!configuration.names().names().contains(target.name())) {
			return "the application has no limit of that name";
		}
		if (target.plan() == null) {
			return null;
		}
		if (!settings.limits().getPlans().containsKey(target.plan())) {
			return "the application has no such plan";
		}
		boolean planned = configuration.names().all().stream()
			.anyMatch((limit) -> limit.name().equals(target.name()) && limit.planned());
		return (target.clientTag() != null && !planned) ? "no plan shapes the limit" : null;
	}

	/** What differs between two configurations, one item per limit name. */
	private static List<String> changes(LimitConfiguration previous, LimitConfiguration next) {
		Map<String, String> before = describe(previous);
		Map<String, String> after = describe(next);
		List<String> changes = new ArrayList<>();
		TreeSet<String> names = new TreeSet<>(before.keySet());
		names.addAll(after.keySet());
		for (String name : names) {
			String was = before.get(name);
			String is = after.get(name);
			if (!Objects.equals(was, is)) {
				changes.add("'" + name + "' " + ((was != null) ? was : "(none)") + " -> " + ((is != null) ? is : "(none)"));
			}
		}
		return changes;
	}

	private static Map<String, String> describe(LimitConfiguration configuration) {
		Map<String, String> limits = new LinkedHashMap<>();
		for (ConfiguredLimit limit : configuration.names().all()) {
			List<String> shapes = new ArrayList<>();
			if (limit.planned()) {
				limit.byPlan().forEach((plan, shaped) -> shapes.add(plan + ": " + describe(shaped)));
			}
			else {
				shapes.add(describe(limit));
			}
			limits.putIfAbsent(limit.name(), String.join(", ", new TreeSet<>(shapes)) + ", "
					+ Terms.of(limit.failurePolicy()));
		}
		return limits;
	}

	private static String describe(ConfiguredLimit limit) {
		LimitDefinition definition = limit.request().definition();
		return Terms.of(definition.algorithm()) + " " + definition.limit()
				+ " per " + definition.window()
				+ ((definition.capacity() != definition.limit()) ? " capacity " + definition.capacity() : "")
				+ (limit.shadow() ? " shadow" : "");
	}

	/**
	 * What a configuration is made of, bound from {@code ratelimit.*}.
	 * @param limits the defaults and plans
	 * @param rules the filter rules; empty when {@code ratelimit.filter.enabled=false}
	 * @param failLocalInstances {@code ratelimit.fail-local.instances}, {@code null} with the in-memory store
	 */
	public record Settings(LimitSettings limits, List<? extends LimitSettings.Rule> rules,
			@Nullable Integer failLocalInstances) {
	}

	/** Told of every change. */
	public interface Listener {

		/** {@code next} is in force in place of {@code previous}. */
		void applied(String source, LimitConfiguration previous, LimitConfiguration next);

		/** A change from {@code source} was refused; the limits stay as they were. */
		default void refused(String source, RuntimeException reason) {
		}

	}

}
