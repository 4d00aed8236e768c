package dev.ratelimit.spring.enforce;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One HTTP request as the limiter sees it, on Spring MVC or on WebFlux: what client keys and answers read of it, its
 * attributes (the request's single deadline, the limits already decided for it), and the header fields of its
 * response. Not an API.
 */
public interface LimitedRequest {

	/**
	 * The client's IP address as the server reports it, after Spring Boot's forwarded-header support; the host
	 * string when the address is unresolved.
	 */
	@Nullable String remoteAddress();

	/**
	 * The first line of a request header field, for the key helper {@code #header(name)}; {@code null} when the
	 * request has none, or outside a request.
	 */
	default @Nullable String header(String name) {
		return null;
	}

	/**
	 * The first value of a query parameter, decoded, for the key helper {@code #queryParam(name)}: the query string
	 * only, never a form body; {@code null} when it has none, or outside a request.
	 */
	default @Nullable String queryParameter(String name) {
		return null;
	}

	/** The request's path, for the problem's {@code instance}. */
	@Nullable String path();

	@Nullable Object getAttribute(String name);

	void setAttribute(String name, @Nullable Object value);

	void removeAttribute(String name);

	/** The field lines of a response header already set, in order; empty when there are none. */
	List<String> responseHeader(String name);

	/** Sets a response header field, replacing its lines. */
	void setResponseHeader(String name, String value);

}
