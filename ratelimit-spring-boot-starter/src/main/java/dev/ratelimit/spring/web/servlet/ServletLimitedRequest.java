package dev.ratelimit.spring.web.servlet;

import java.util.List;

import dev.ratelimit.spring.enforce.LimitedRequest;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

/** A servlet request and its response, as the limiter sees them. */
public record ServletLimitedRequest(HttpServletRequest request, @Nullable HttpServletResponse response)
		implements LimitedRequest {

	@Override
	public String remoteAddress() {
		return this.request.getRemoteAddr();
	}

	@Override
	public String path() {
		return this.request.getRequestURI();
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.request.getAttribute(name);
	}

	@Override
	public void setAttribute(String name, @Nullable Object value) {
		this.request.setAttribute(name, value);
	}

	@Override
	public void removeAttribute(String name) {
		this.request.removeAttribute(name);
	}

	@Override
	public List<String> responseHeader(String name) {
		return (this.response != null) ? List.copyOf(this.response.getHeaders(name)) : List.of();
	}

	@Override
	public void setResponseHeader(String name, String value) {
		if (this.response != null) {
			this.response.setHeader(name, value);
		}
	}

}
