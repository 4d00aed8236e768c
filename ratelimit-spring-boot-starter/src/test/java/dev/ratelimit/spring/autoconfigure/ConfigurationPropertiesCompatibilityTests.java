package dev.ratelimit.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The properties keep their names, types and defaults across restructurings: the generated metadata is compared with
 * {@code configuration-properties-before-restructuring.json}, the names, types and defaults of the metadata built
 * from the last commit before the runtime left the {@code autoconfigure} package (7d93619). One change is expected
 * and named here: the enums of the configuration moved from {@code dev.ratelimit.spring.autoconfigure} to the API
 * package {@code dev.ratelimit.spring}, and the client type with the {@code ratelimit.redis} properties out of
 * {@code RateLimitProperties} into {@code RateLimitRedisProperties}, the rules' and plans' nested classes into
 * {@code FilterRuleProperties} and {@code PlanLimitProperties}; the values written in {@code application.yml} are
 * the same. Properties added since are listed in {@link #ADDED}.
 */
class ConfigurationPropertiesCompatibilityTests {

	private static final Map<String, String> MOVED_TYPES = Map.of(
			"dev.ratelimit.spring.autoconfigure.FailurePolicy", "dev.ratelimit.spring.FailurePolicy",
			"dev.ratelimit.spring.autoconfigure.LimitMode", "dev.ratelimit.spring.LimitMode",
			"dev.ratelimit.spring.autoconfigure.HeaderStyle", "dev.ratelimit.spring.HeaderStyle",
			"dev.ratelimit.spring.autoconfigure.MissingKeyPolicy", "dev.ratelimit.spring.MissingKeyPolicy",
			"dev.ratelimit.spring.autoconfigure.RateLimitProperties$Redis$ClientType",
			"dev.ratelimit.spring.autoconfigure.RateLimitRedisProperties$ClientType",
			"java.util.List<dev.ratelimit.spring.autoconfigure.RateLimitProperties$Rule>",
			"java.util.List<dev.ratelimit.spring.autoconfigure.FilterRuleProperties>",
			"java.util.Map<java.lang.String,java.util.Map<java.lang.String,dev.ratelimit.spring.autoconfigure.RateLimitProperties$PlanLimit>>",
			"java.util.Map<java.lang.String,java.util.Map<java.lang.String,dev.ratelimit.spring.autoconfigure.PlanLimitProperties>>");

	/** Properties added since, each with its type and default. */
	private static final Map<String, String> ADDED = Map.of("ratelimit.filter.charge-on-status-order",
			"java.lang.Integer = -110", "ratelimit.overrides.poll-interval", "java.time.Duration = 2s",
			"ratelimit.metrics.near-limit-ratio", "java.lang.Double = 0.8", "ratelimit.usage.max-clients",
			"java.lang.Integer = 100000");

	@Test
	void everyPropertyKeepsItsNameTypeAndDefault() throws IOException {
		Map<String, String> expected = new TreeMap<>(before());
		expected.putAll(ADDED);
		assertThat(current()).isEqualTo(expected);
	}

	private static Map<String, String> before() throws IOException {
		List<Map<String, Object>> properties = JsonPath
			.read(read("/configuration-properties-before-restructuring.json"), "$[*]");
		Map<String, String> described = new TreeMap<>();
		for (Map<String, Object> property : properties) {
			String type = (String) property.get("type");
			described.put((String) property.get("name"),
					describe(MOVED_TYPES.getOrDefault(type, type), property.get("defaultValue")));
		}
		return described;
	}

	private static Map<String, String> current() throws IOException {
		List<Map<String, Object>> properties = JsonPath.read(read("/META-INF/spring-configuration-metadata.json"),
				"$.properties[*]");
		Map<String, String> described = new TreeMap<>();
		for (Map<String, Object> property : properties) {
			described.put((String) property.get("name"),
					describe((String) property.get("type"), property.get("defaultValue")));
		}
		return described;
	}

	private static String describe(String type, Object defaultValue) {
		return type + ((defaultValue != null) ? " = " + defaultValue : "");
	}

	private static String read(String resource) throws IOException {
		try (InputStream in = ConfigurationPropertiesCompatibilityTests.class.getResourceAsStream(resource)) {
			assertThat(in).as(resource).isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
