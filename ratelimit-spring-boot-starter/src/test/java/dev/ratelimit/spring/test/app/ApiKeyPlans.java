package dev.ratelimit.spring.test.app;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The plan of an API key ({@code X-Api-Key}), as an application's own lookup would give it: the plan expression calls
 * {@code @apiKeyPlans.plan(#request)}. Tests change a key's plan while it is in use.
 */
public class ApiKeyPlans {

	private final Map<String, String> plans = new ConcurrentHashMap<>();

	public void assign(String apiKey, String plan) {
		this.plans.put(apiKey, plan);
	}

	public String plan(HttpServletRequest request) {
		return planOf(request.getHeader("X-Api-Key"));
	}

	public String plan(ServerHttpRequest request) {
		return planOf(request.getHeaders().getFirst("X-Api-Key"));
	}

	public String key(HttpServletRequest request) {
		return request.getHeader("X-Api-Key");
	}

	public String key(ServerHttpRequest request) {
		return request.getHeaders().getFirst("X-Api-Key");
	}

	private String planOf(String apiKey) {
		return (apiKey != null) ? this.plans.get(apiKey) : null;
	}

}
