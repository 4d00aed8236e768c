package dev.ratelimit.security;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import dev.ratelimit.test.DocumentedSnippets;
import org.junit.jupiter.api.Test;

/**
 * The snippets docs/OPERATIONS.md shows are the classes the tests run ({@link DocumentedSnippets}).
 */
class DocumentedSnippetsTests {

	private static final Map<String, String> SOURCES = Map.of("mvc", "RateLimitsEndpointSecurity.java", "mvc-default",
			"ApplicationSecurity.java", "webflux", "ReactiveRateLimitsEndpointSecurity.java", "webflux-default",
			"ReactiveApplicationSecurity.java");

	@Test
	void operationsShowsTheTestedSnippets() throws IOException {
		DocumentedSnippets.assertShown(Path.of("../docs/OPERATIONS.md"), Path.of("src/test/java/dev/ratelimit/security"),
				SOURCES);
	}

}
