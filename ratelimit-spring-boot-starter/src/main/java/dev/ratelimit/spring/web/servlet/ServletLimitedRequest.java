package dev.ratelimit.spring.web.servlet;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.ratelimit.spring.enforce.LimitedRequest;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.web.util.UriComponentsBuilder;

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
	public @Nullable String header(String name) {
		return this.request.getHeader(name);
	}

	/**
	 * From the query string alone: {@code getParameter} would read a form body too, and reading it in a filter takes
	 * it from the application. Decoded as WebFlux decodes its query parameters, so that both stacks key alike.
	 */
	@Override
	public @Nullable String queryParameter(String name) {
		String query = this.request.getQueryString();
		if (query == null) {
			return null;
		}
		for (Map.Entry<String, List<@Nullable String>> parameter : UriComponentsBuilder.newInstance()
			.query(query)
			.build()
			.getQueryParams()
			.entrySet()) {
			if (URLDecoder.decode(parameter.getKey(), StandardCharsets.UTF_8).equals(name)) {
				String value = parameter.getValue().get(0);
				return (value != null) ? URLDecoder.decode(value, StandardCharsets.UTF_8) : null;
			}
		}
		return null;
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
