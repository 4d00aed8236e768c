package dev.ratelimit.spring.gateway.webflux;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

/**
 * The header fields that {@link RateLimitGatewayRateLimiter} answers {@code RequestRateLimiter} with: the starter's,
 * and {@code RedisRateLimiter}'s {@code X-RateLimit-*} fields where a route asks for them.
 */
final class DecisionFields {

	private static final Pattern REMAINING = Pattern.compile(";r=(\\d+)");

	private DecisionFields() {
	}

	/**
	 * The fields of the decision, with {@code RedisRateLimiter}'s when asked: of the limit in force (overrides
	 * included), the replenish rate only where its window is a second.
	 */
	static Map<String, String> of(HttpHeaders fields, boolean gatewayHeaders, List<ConfiguredLimit> limits) {
		Map<String, String> headers = new LinkedHashMap<>();
		fields.forEach((name, values) -> headers.put(name, String.join(", ", values)));
		if (gatewayHeaders) {
			LimitRequest limit = limits.get(0).request();
			String remaining = remaining(fields);
			if (remaining != null) {
				headers.put("X-RateLimit-Remaining", remaining);
			}
			headers.put("X-RateLimit-Burst-Capacity", Long.toString(limit.definition().capacity()));
			if (limit.definition().window().equals(Duration.ofSeconds(1))) {
				headers.put("X-RateLimit-Replenish-Rate", Long.toString(limit.definition().limit()));
			}
			headers.put("X-RateLimit-Requested-Tokens", Long.toString(limit.cost()));
		}
		return headers;
	}

	/** What the fields of {@code ratelimit.headers} say is left, whichever their style. */
	private static @Nullable String remaining(HttpHeaders fields) {
		String state = fields.getFirst("RateLimit");
		if (state != null) {
			Matcher matcher = REMAINING.matcher(state);
			return matcher.find() ? matcher.group(1) : null;
		}
		String remaining = fields.getFirst("X-RateLimit-Remaining");
		return (remaining != null) ? remaining : fields.getFirst("RateLimit-Remaining");
	}

}
