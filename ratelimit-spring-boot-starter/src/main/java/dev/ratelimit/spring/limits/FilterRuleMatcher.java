package dev.ratelimit.spring.limits;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;


import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.http.server.PathContainer;
import org.springframework.util.StringUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * The rules of {@code ratelimit.filter.rules}, checked at startup (a bad path, method or limit stops it with the
 * property's name) and matched per request, on Spring MVC and WebFlux alike.
 */
public final class FilterRuleMatcher {

	private static final List<String> STANDARD_METHODS = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
			"OPTIONS", "TRACE");

	private final List<FilterRule> rules;

	private final boolean anyChargedByOutcome;

	private FilterRuleMatcher(List<FilterRule> rules) {
		this.rules = List.copyOf(rules);
		this.anyChargedByOutcome = rules.stream().anyMatch((rule) -> rule.limit().chargedByOutcome());
	}

	/** The rules of {@code ratelimit.filter.rules}, in order, their limits registered in {@code names}. */
	public static FilterRuleMatcher of(List<? extends LimitSettings.Rule> configured, LimitResolver factory,
			LimitRegistry names) {
		List<FilterRule> rules = new ArrayList<>();
		for (int i = 0; i < configured.size(); i++) {
			String property = "ratelimit.filter.rules[" + i + "]";
			LimitSettings.Rule rule = configured.get(i);
			try {
				ConfiguredLimit limit = factory.fromRule(rule, property);
				try {
					names.register(limit);
				}
				catch (IllegalStateException ex) {
					throw new InvalidConfigurationPropertyValueException(property + ".name", limit.name(),
							ex.getMessage());
				}
				rules.add(new FilterRule(limit, patterns(rule.getPaths(), property), methods(rule.getMethods(), property)));
			}
			catch (InvalidConfigurationPropertyValueException ex) {
				throw naming(rule, ex);
			}
		}
		return new FilterRuleMatcher(rules);
	}

	/**
	 * {@code ex} with a reason that names the rule as well as its property: an index ({@code rules[3]}) is hard to find
	 * in a long list, and a profile's rules are numbered apart from the others'.
	 */
	private static InvalidConfigurationPropertyValueException naming(LimitSettings.Rule rule,
			InvalidConfigurationPropertyValueException ex) {
		String which = StringUtils.hasText(rule.getName()) ? "the filter rule '" + rule.getName() + "'"
				: rule.getPaths().isEmpty() ? "a filter rule without name or paths"
						: "the filter rule of " + String.join(", ", rule.getPaths());
		return new InvalidConfigurationPropertyValueException(ex.getName(), ex.getValue(),
				"In " + which + ": " + ex.getReason());
	}

	public static FilterRuleMatcher none() {
		return new FilterRuleMatcher(List.of());
	}

	/** The limits of the rules charged on arrival that match a request, in the rules' order. */
	public List<ConfiguredLimit> matching(String method, PathContainer pathWithinApplication) {
		return matching(method, pathWithinApplication, false);
	}

	/**
	 * The limits of the rules charged by the response's status ({@code charge-on-status}) that match a request, in
	 * the rules' order.
	 */
	public List<ConfiguredLimit> matchingChargedByOutcome(String method, PathContainer pathWithinApplication) {
		return matching(method, pathWithinApplication, true);
	}

	private List<ConfiguredLimit> matching(String method, PathContainer path, boolean chargedByOutcome) {
		List<ConfiguredLimit> matched = new ArrayList<>();
		for (FilterRule rule : this.rules) {
			if (rule.limit().chargedByOutcome() == chargedByOutcome && rule.matches(method, path)) {
				matched.add(rule.limit());
			}
		}
		return matched;
	}

	/**
	 * The limits of the rules, charged on arrival or by the response's status, that match {@code method} on every one
	 * of {@code paths}, in the rules' order: with paths that stand for all the requests of an operation (its path
	 * template with sample values for its variables), the limits that surely apply to each of its requests.
	 */
	public List<ConfiguredLimit> matchingAll(String method, List<PathContainer> paths) {
		List<ConfiguredLimit> matched = new ArrayList<>();
		for (FilterRule rule : this.rules) {
			if (!paths.isEmpty() && paths.stream().allMatch((path) -> rule.matches(method, path))) {
				matched.add(rule.limit());
			}
		}
		return matched;
	}

	/** Whether any rule is charged by the response's status, so that other requests skip the matching. */
	public boolean anyChargedByOutcome() {
		return this.anyChargedByOutcome;
	}

	public boolean isEmpty() {
		return this.rules.isEmpty();
	}

	private static Set<String> methods(List<String> methods, String property) {
		for (int i = 0; i < methods.size(); i++) {
			if (!STANDARD_METHODS.contains(methods.get(i).toUpperCase(Locale.ROOT))) {
				throw new InvalidConfigurationPropertyValueException(property + ".methods[" + i + "]", methods.get(i),
						"Not an HTTP method; use one of " + STANDARD_METHODS + ".");
			}
		}
		return Set.copyOf(methods);
	}

	private static List<PathPattern> patterns(List<String> paths, String property) {
		List<PathPattern> patterns = new ArrayList<>();
		for (int i = 0; i < paths.size(); i++) {
			if (!paths.get(i).startsWith("/")) {
				throw new InvalidConfigurationPropertyValueException(property + ".paths[" + i + "]", paths.get(i),
						"A path pattern starts with '/', such as '/api/**'; without it, it would match nothing.");
			}
			try {
				patterns.add(PathPatternParser.defaultInstance.parse(paths.get(i)));
			}
			catch (PatternParseException ex) {
				throw new InvalidConfigurationPropertyValueException(property + ".paths[" + i + "]", paths.get(i),
						"Not a valid path pattern: " + ex.getMessage());
			}
		}
		return patterns;
	}

}
