package dev.ratelimit.spring.test.recipe;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The code docs/TESTING.md shows is the code of this package, which the build runs: each {@code <!-- snippet: tag -->}
 * block there, whitespace aside, is the code between {@code // snippet:start tag} and {@code // snippet:end tag} here.
 */
class DocumentedTestingSnippetsTests {

	private static final Map<String, String> SOURCES = Map.of("controller", "GreetingController.java", "clock",
			"LimitsClock.java", "in-memory", "GreetingLimitsIntegrationTests.java", "redis",
			"GreetingLimitsOnRedisIntegrationTests.java", "redis-server", "RedisServer.java", "off",
			"GreetingWithoutLimitsIntegrationTests.java");

	@Test
	void testingShowsTheTestedCode() throws IOException {
		String docs = Files.readString(Path.of("../docs/TESTING.md"));
		Matcher blocks = Pattern.compile("<!-- snippet: ([\\w-]+) -->\\n```java\\n(.*?)\\n```", Pattern.DOTALL)
			.matcher(docs);
		int found = 0;
		while (blocks.find()) {
			String tag = blocks.group(1);
			assertThat(SOURCES).as("a source for the snippet '" + tag + "'").containsKey(tag);
			String source = Files.readString(Path.of("src/test/java/dev/ratelimit/spring/test/recipe", SOURCES.get(tag)));
			Matcher code = Pattern.compile("// snippet:start " + tag + "\\n(.*?)// snippet:end " + tag, Pattern.DOTALL)
				.matcher(source);
			assertThat(code.find()).as(tag + " marked in " + SOURCES.get(tag)).isTrue();
			assertThat(normalized(blocks.group(2))).as("docs/TESTING.md's snippet '" + tag + "'")
				.isEqualTo(normalized(code.group(1)));
			found++;
		}
		assertThat(found).as("snippets in docs/TESTING.md").isEqualTo(SOURCES.size());
	}

	private static String normalized(String code) {
		return code.strip().replaceAll("\\s+", " ");
	}

}
