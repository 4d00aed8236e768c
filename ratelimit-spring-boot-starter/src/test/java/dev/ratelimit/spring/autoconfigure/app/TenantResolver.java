package dev.ratelimit.spring.autoconfigure.app;

import java.util.Locale;

import jakarta.servlet.http.HttpServletRequest;

/**
 * A bean that key expressions call ({@code @tenantResolver.resolve(#request)}): the tenant from {@code X-Tenant},
 * case-insensitive, or {@code null} when the header is absent.
 */
public class TenantResolver {

	public String resolve(HttpServletRequest request) {
		String tenant = request.getHeader("X-Tenant");
		return (tenant != null) ? tenant.trim().toLowerCase(Locale.ROOT) : null;
	}

	/** Like {@link #resolve}, but throws when the header is absent, as application code may. */
	public String require(HttpServletRequest request) {
		String tenant = resolve(request);
		if (tenant == null) {
			throw new IllegalStateException("no tenant");
		}
		return tenant;
	}

}
