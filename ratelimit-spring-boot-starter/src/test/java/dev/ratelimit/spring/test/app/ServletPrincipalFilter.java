package dev.ratelimit.spring.test.app;

import java.io.IOException;
import java.security.Principal;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Authenticates the user named by {@code X-User}, as a security filter would (ahead of the limiter's filter), so
 * that tests reach {@code #principal} over real HTTP on Spring MVC without a security setup: the servlet twin of
 * {@link ReactivePrincipalFilter}. A request without the header passes unchanged.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public class ServletPrincipalFilter implements Filter {

	@Override
	public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		String user = (request instanceof HttpServletRequest http) ? http.getHeader("X-User") : null;
		if (user == null) {
			chain.doFilter(request, response);
			return;
		}
		Principal principal = () -> user;
		chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {

			@Override
			public Principal getUserPrincipal() {
				return principal;
			}

			@Override
			public String getRemoteUser() {
				return user;
			}

		}, response);
	}

}
