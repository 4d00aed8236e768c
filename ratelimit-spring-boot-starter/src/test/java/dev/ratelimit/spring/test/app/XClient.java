package dev.ratelimit.spring.test.app;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * Reads {@code X-Client} from a request of either web stack, for key expressions that tests write once for both
 * ({@code @xClient.of(#request)}).
 */
public class XClient {

	public String of(HttpServletRequest request) {
		return request.getHeader("X-Client");
	}

	public String of(ServerHttpRequest request) {
		return request.getHeaders().getFirst("X-Client");
	}

}
