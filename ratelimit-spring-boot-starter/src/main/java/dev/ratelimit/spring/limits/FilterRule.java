package dev.ratelimit.spring.limits;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;


import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * A filter rule ready to match: its parsed path patterns and HTTP methods (empty: every method; GET includes HEAD).
 */
record FilterRule(ConfiguredLimit limit, List<PathPattern> paths, Set<String> methods) {

	FilterRule {
		methods = methods.stream().map((method) -> method.toUpperCase(Locale.ROOT)).collect(Collectors.toSet());
		// Spring MVC answers HEAD with the GET handler: a rule on GET must not be side-stepped with HEAD.
		if (methods.contains("GET")) {
			methods = Stream.concat(methods.stream(), Stream.of("HEAD")).collect(Collectors.toSet());
		}
	}

	boolean matches(String method, PathContainer path) {
		return (this.methods.isEmpty() || this.methods.contains(method))
				&& this.paths.stream().anyMatch((pattern) -> pattern.matches(path));
	}

}
