package dev.ratelimit.spring.test.app;

import java.util.Locale;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * A bean that key expressions call ({@code @tenantResolver.resolve(#request)}): the tenant from {@code X-Tenant},
 * case-insensitive, or {@code null} when the header is absent.
 */
public class TenantResolver {

	public String resolve(HttpServletRequest request) {
		String tenant = request.getHeader("X-Tenant");
		return normalized(tenant);
	}

	/** The same on WebFlux. */
	public String resolve(ServerHttpRequest request) {
		return normalized(request.getHeaders().getFirst("X-Tenant"));
	}

	/** Like {@link #resolve}, but throws when the header is absent, as application code may. */
	public String require(HttpServletRequest request) {
		return required(resolve(request));
	}

	/** The same on WebFlux. */
	public String require(ServerHttpRequest request) {
		return required(resolve(request));
	}

	private static String normalized(String tenant) {
		return (tenant != null) ? tenant.trim().toLowerCase(Locale.ROOT) : null;
	}

	private static String required(String tenant) {
		if (tenant == null) {
			throw new IllegalStateException("no tenant");
		}
		return tenant;
	}

}
