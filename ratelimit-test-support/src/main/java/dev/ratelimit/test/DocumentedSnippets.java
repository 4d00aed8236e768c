package dev.ratelimit.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The code a page of the documentation shows is the code the build runs: each {@code <!-- snippet: tag -->} block of
 * Java on the page, whitespace aside, is the code between {@code // snippet:start tag} and
 * {@code // snippet:end tag} in the source file its tag names, and every such source's snippet is on the page. For
 * the modules whose tests hold the code that a page shows (docs/TESTING.md's recipe, docs/OPERATIONS.md's security
 * chains).
 */
public final class DocumentedSnippets {

	private static final Pattern BLOCK = Pattern.compile("<!-- snippet: ([\\w-]+) -->\\n```java\\n(.*?)\\n```",
			Pattern.DOTALL);

	private DocumentedSnippets() {
	}

	/**
	 * Checks that {@code page} shows exactly the snippets {@code sources} marks.
	 * @param page the page, such as {@code ../docs/TESTING.md} from a module's directory
	 * @param directory where the source files are
	 * @param sources each snippet's tag, and the file in {@code directory} that marks its code
	 * @throws AssertionError naming the page and the tag: a block with no source named for it, a source that does not
	 * mark it, code that differs (both shown, whitespace collapsed), or a source's snippet the page does not show
	 * @throws IOException if the page or a source cannot be read
	 */
	public static void assertShown(Path page, Path directory, Map<String, String> sources) throws IOException {
		Matcher blocks = BLOCK.matcher(Files.readString(page));
		Set<String> shown = new LinkedHashSet<>();
		while (blocks.find()) {
			String tag = blocks.group(1);
			String file = sources.get(tag);
			if (file == null) {
				throw new AssertionError(page + " shows the snippet '" + tag + "', for which no source is named");
			}
			Matcher code = Pattern
				.compile("// snippet:start " + Pattern.quote(tag) + "\\n(.*?)// snippet:end " + Pattern.quote(tag),
						Pattern.DOTALL)
				.matcher(Files.readString(directory.resolve(file)));
			if (!code.find()) {
				throw new AssertionError("the snippet '" + tag + "' of " + page + " is not marked in " + file);
			}
			String documented = normalized(blocks.group(2));
			String tested = normalized(code.group(1));
			if (!documented.equals(tested)) {
				throw new AssertionError(page + "'s snippet '" + tag + "' differs from " + file + "'s, whitespace aside:"
						+ "\n  page:   " + documented + "\n  source: " + tested);
			}
			shown.add(tag);
		}
		Set<String> missing = new LinkedHashSet<>(sources.keySet());
		missing.removeAll(shown);
		if (!missing.isEmpty()) {
			throw new AssertionError(page + " does not show the snippets " + missing);
		}
	}

	private static String normalized(String code) {
		return code.strip().replaceAll("\\s+", " ");
	}

}
