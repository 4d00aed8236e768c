package dev.ratelimit.sample;

import org.springframework.stereotype.Component;

/**
 * The plan of an API key, for {@code ratelimit.plan.expression} ({@code @apiKeyPlans.planOf(...)}). A real
 * application would look the key up in its own store; the sample gives keys that start with {@code pro-} the pro
 * plan and every other key, or none, the free plan.
 */
@Component
public class ApiKeyPlans {

	public String planOf(String apiKey) {
		return (apiKey != null && apiKey.startsWith("pro-")) ? "pro" : "free";
	}

}
