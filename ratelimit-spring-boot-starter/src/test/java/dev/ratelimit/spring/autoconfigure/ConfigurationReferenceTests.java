package dev.ratelimit.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference, {@code docs/CONFIGURATION.md}, against the configuration metadata the build generates
 * ({@code META-INF/spring-configuration-metadata.json}): its table of properties ({@code | property | type | default
 * | description |}) has one row for every property of the metadata and none for a property the metadata lacks, and
 * shows each default that the metadata has, as a code span ({@code `250ms`}). Defaults the metadata does not know
 * (the capacity's "the limit") are the table's to describe.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConfigurationReferenceTests {

	/** Tests run in the module's directory; the reference is in the repository's docs. */
	private static final Path REFERENCE = Path.of("..", "docs", "CONFIGURATION.md");

	private static final String HEADER = "| property | type | default | description |";

	private static final Pattern CODE_SPAN = Pattern.compile("`([^`]*)`");

	/** Each property of the metadata, in its order, with its default ({@code null} when it has none). */
	private Map<String, Object> metadata;

	/** Each row of the reference's table: the property, then its default cell. */
	private Map<String, String> table;

	/** Properties that the table names more than once. */
	private final List<String> repeated = new ArrayList<>();

	@BeforeAll
	void readBoth() throws IOException {
		this.metadata = readMetadata();
		this.table = readTable();
	}

	@Test
	void everyPropertyOfTheMetadataHasARowInTheReference() {
		List<String> missing = new ArrayList<>(this.metadata.keySet());
		missing.removeAll(this.table.keySet());
		assertThat(missing).as("properties of the metadata missing from the table of %s", REFERENCE).isEmpty();
	}

	@Test
	void everyRowOfTheReferenceNamesAPropertyOfTheMetadata() {
		List<String> unknown = new ArrayList<>(this.table.keySet());
		unknown.removeAll(this.metadata.keySet());
		assertThat(unknown).as("properties in the table of %s that the metadata does not have", REFERENCE).isEmpty();
	}

	@Test
	void everyDefaultOfTheMetadataIsTheDefaultInTheReference() {
		List<String> differing = new ArrayList<>();
		this.metadata.forEach((property, expected) -> {
			String cell = this.table.get(property);
			if (expected == null || cell == null) {
				return;
			}
			String shown = codeSpan(cell);
			if (!String.valueOf(expected).equals(shown)) {
				differing.add(property + ": the metadata's default is `" + expected + "`, the table shows '" + cell + "'");
			}
		});
		assertThat(differing).as("defaults in the table of %s", REFERENCE).isEmpty();
	}

	@Test
	void noPropertyHasTwoRowsInTheReference() {
		assertThat(this.repeated).as("properties named twice in the table of %s", REFERENCE).isEmpty();
	}

	/** The cell's value when it is one code span alone, else the cell as written. */
	private static String codeSpan(String cell) {
		Matcher matcher = CODE_SPAN.matcher(cell);
		return (matcher.matches()) ? matcher.group(1) : cell;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> readMetadata() throws IOException {
		List<Map<String, Object>> found = new ArrayList<>();
		for (URL url : Collections.list(ConfigurationReferenceTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = url.openStream()) {
				Map<String, Object> metadata = JsonMapper.builder().build().readValue(in, Map.class);
				List<Map<String, Object>> groups = (List<Map<String, Object>>) metadata.get("groups");
				if (groups != null && groups.stream().anyMatch((group) -> "ratelimit".equals(group.get("name")))) {
					found.add(metadata);
				}
			}
		}
		assertThat(found).as("the starter's configuration metadata on the classpath").hasSize(1);
		Map<String, Object> properties = new LinkedHashMap<>();
		for (Map<String, Object> property : (List<Map<String, Object>>) found.get(0).get("properties")) {
			properties.put((String) property.get("name"), property.get("defaultValue"));
		}
		assertThat(properties).as("properties of the metadata").isNotEmpty();
		return properties;
	}

	private Map<String, String> readTable() throws IOException {
		assertThat(REFERENCE).as("the configuration reference").exists();
		List<String> lines = Files.readAllLines(REFERENCE, StandardCharsets.UTF_8);
		int header = lines.indexOf(HEADER);
		assertThat(header).as("a table headed '%s' in %s", HEADER, REFERENCE).isNotNegative();
		Map<String, String> rows = new LinkedHashMap<>();
		// the header, then its delimiter row, then the rows up to the first line that is not one
		for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
			String line = lines.get(i).strip();
			String[] cells = line.substring(1, line.length() - 1).split("\\|", -1);
			assertThat(cells).as("cells of line %d of %s: %s", i + 1, REFERENCE, line).hasSize(4);
			String property = codeSpan(cells[0].strip());
			if (rows.put(property, cells[2].strip()) != null) {
				this.repeated.add(property);
			}
		}
		assertThat(rows).as("rows of the table in %s", REFERENCE).isNotEmpty();
		return rows;
	}

}
