package dev.ratelimit.spring.test.recipe;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import dev.ratelimit.test.DocumentedSnippets;
import org.junit.jupiter.api.Test;

/**
 * The code docs/TESTING.md shows is the code of this package, which the build runs ({@link DocumentedSnippets}).
 */
class DocumentedTestingSnippetsTests {

	private static final Map<String, String> SOURCES = Map.of("controller", "GreetingController.java", "clock",
			"LimitsClock.java", "in-memory", "GreetingLimitsIntegrationTests.java", "redis",
			"GreetingLimitsOnRedisIntegrationTests.java", "redis-server", "RedisServer.java", "off",
			"GreetingWithoutLimitsIntegrationTests.java");

	@Test
	void testingShowsTheTestedCode() throws IOException {
		DocumentedSnippets.assertShown(Path.of("../docs/TESTING.md"),
				Path.of("src/test/java/dev/ratelimit/spring/test/recipe"), SOURCES);
	}

}
