package dev.ratelimit.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code java -jar ratelimit-sample-app.jar --compare}, as its README runs it: the printed tables carry exactly the
 * numbers of the reference results in {@code docs/ALGORITHMS.md}, whichever Redis it uses.
 */
class ComparisonCommandIT {

	/** docs/ALGORITHMS.md, boundary burst: admitted at 0.990 s, at 1.010 s, total. */
	private static final Map<String, List<Long>> BOUNDARY_BURST = Map.of(
			"fixed window", List.of(10L, 10L, 20L),
			"sliding log", List.of(10L, 0L, 10L),
			"sliding window counter", List.of(10L, 1L, 11L),
			"token bucket", List.of(10L, 0L, 10L));

	/** docs/ALGORITHMS.md, steady overload: admitted of 200, most in any 1 s span. */
	private static final Map<String, List<Long>> STEADY_OVERLOAD = Map.of(
			"fixed window", List.of(100L, 17L),
			"sliding log", List.of(93L, 10L),
			"sliding window counter", List.of(99L, 12L),
			"token bucket", List.of(108L, 19L));

	private static final Pattern EMBEDDED = Pattern.compile("at 127\\.0\\.0\\.1:(\\d+) \\(embedded redis-server");

	@Test
	void printsTheSpecTablesUsingTheRedisOfRedisUrl() {
		try (TestRedis redis = TestRedis.start();
				SampleProcess compare = SampleProcess.launch("compare-redis-url", Map.of("REDIS_URL", redis.url()),
						"--compare")) {
			assertThat(compare.awaitExit()).as(compare.output()).isZero();
			String output = compare.output();
			assertSpecTables(output);
			assertThat(output).contains(" at " + redis.host() + ":" + redis.port() + ",").doesNotContain("embedded");
			// The run removed what it wrote.
			assertThat(redis.command("DBSIZE")).isEqualTo(":0");
		}
	}

	@Test
	void startsAnEmbeddedRedisWhenNoneIsConfiguredAndStopsItOnExit() {
		try (SampleProcess compare = SampleProcess.launch("compare-embedded", Map.of(), "--compare")) {
			assertThat(compare.awaitExit()).as(compare.output()).isZero();
			String output = compare.output();
			assertSpecTables(output);
			Matcher embedded = EMBEDDED.matcher(output);
			assertThat(embedded.find()).as(output).isTrue();
			int port = Integer.parseInt(embedded.group(1));
			assertThatExceptionOfType(IOException.class).as("redis-server still listening on " + port)
				.isThrownBy(() -> {
					try (Socket socket = new Socket()) {
						socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
					}
				});
		}
	}

	private static void assertSpecTables(String output) {
		assertReferenceTables(output);
		Map<String, List<Long>> memory = table(output, "| algorithm | keys | bytes |");
		assertThat(memory).as(output).containsOnlyKeys(BOUNDARY_BURST.keySet());
		// One key per client for each algorithm, of some size: the spec leaves the bytes to the Redis used.
		memory.forEach((algorithm, keysAndBytes) -> {
			assertThat(keysAndBytes.get(0)).as(algorithm).isEqualTo(1L);
			assertThat(keysAndBytes.get(1)).as(algorithm).isPositive();
		});
	}

	/** The tables of admitted requests carry the numbers of docs/ALGORITHMS.md, whatever the store. */
	static void assertReferenceTables(String output) {
		assertThat(table(output, "| algorithm | admitted at 0.990 s | admitted at 1.010 s | total |"))
			.as(output)
			.isEqualTo(BOUNDARY_BURST);
		assertThat(table(output, "| algorithm | admitted of 200 | most in any 1 s span |")).as(output)
			.isEqualTo(STEADY_OVERLOAD);
	}

	/** The rows of the Markdown table under {@code header}: algorithm name to its numbers. */
	private static Map<String, List<Long>> table(String output, String header) {
		List<String> lines = output.lines().toList();
		int at = lines.indexOf(header);
		assertThat(at).as("table '%s' in:%n%s", header, output).isNotNegative();
		Map<String, List<Long>> rows = new LinkedHashMap<>();
		// Skip the header and the |---| line; the table ends at the first line that is not a row.
		for (String line : lines.subList(at + 2, lines.size())) {
			if (!line.startsWith("|")) {
				break;
			}
			String[] cells = line.substring(1, line.length() - 1).split("\\|");
			rows.put(cells[0].trim(),
					Arrays.stream(cells).skip(1).map(String::trim).map(Long::valueOf).toList());
		}
		return rows;
	}

}
