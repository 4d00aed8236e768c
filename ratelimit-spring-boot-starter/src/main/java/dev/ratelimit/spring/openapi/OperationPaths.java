package dev.ratelimit.spring.openapi;

import java.util.ArrayList;
import java.util.List;

import org.springframework.http.server.PathContainer;

/**
 * The requests of an operation, as concrete paths for the filter rules' own matcher: an operation's path template
 * ({@code /api/items/{id}}) with each variable segment replaced by one sample value after another. A rule that
 * matches all of them matches any value there: a literal ({@code special}) or a partial wildcard ({@code *.json})
 * cannot match both a one-character sample and a longer one of other characters, and a variable restricted by a
 * regular expression ({@code {id:\d+}}) fails on the samples that are not digits, letters or words. A segment with
 * anything of a variable in it ({@code {id}.json}) is taken as a whole variable, which can only make a rule cover
 * less.
 *
 * <p>
 * springdoc writes a catch-all variable ({@code {*path}}) as a plain one ({@code {path}}), so such an operation is
 * sampled as one segment; {@code **} in a template stands for no segment, one, or two.
 */
final class OperationPaths {

	/** One sample for every variable of a path at a time; a one-character sample, and longer ones of other characters. */
	private static final List<String> SAMPLES = List.of("0", "{x}", "a.b");

	/** What {@code **} stands for in the path of each sample: no segment, one, two. */
	private static final List<String> MULTI_SEGMENT_SAMPLES = List.of("", "0", "{x}/a.b");

	private OperationPaths() {
	}

	/**
	 * Paths that together stand for every request of the operation whose template is {@code template}: the template
	 * alone when it has no variable.
	 */
	static List<PathContainer> samples(String template) {
		String[] segments = template.split("/", -1);
		List<PathContainer> paths = new ArrayList<>();
		for (int sample = 0; sample < SAMPLES.size(); sample++) {
			StringBuilder path = new StringBuilder();
			boolean variable = false;
			for (int i = 1; i < segments.length; i++) {
				String segment = segments[i];
				if (segment.equals("**")) {
					variable = true;
					String value = MULTI_SEGMENT_SAMPLES.get(sample);
					if (!value.isEmpty()) {
						path.append('/').append(value);
					}
				}
				else if (isVariable(segment)) {
					variable = true;
					path.append('/').append(SAMPLES.get(sample));
				}
				else {
					path.append('/').append(segment);
				}
			}
			paths.add(PathContainer.parsePath(path.isEmpty() ? "/" : path.toString()));
			if (!variable) {
				break;
			}
		}
		return paths;
	}

	private static boolean isVariable(String segment) {
		return segment.indexOf('{') >= 0 || segment.indexOf('*') >= 0;
	}

}
