package dev.ratelimit.spring.gateway;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * A request as a route's key expression reads it ({@code #request}), on either gateway server: strings only, so that
 * an expression that arrived with a route definition reaches nothing beyond the request.
 */
public final class RouteKeyRequest {

	private final Function<String, @Nullable String> headers;

	private final Function<String, @Nullable String> parameters;

	private final Function<String, @Nullable String> cookies;

	private final String method;

	private final String path;

	private final @Nullable String host;

	private final @Nullable String remoteAddress;

	/**
	 * @param headers a header field's first value by name
	 * @param parameters a query parameter's first value by name
	 * @param cookies a cookie's value by name
	 * @param remoteAddress the client's address, as the server reports it
	 */
	public RouteKeyRequest(Function<String, @Nullable String> headers, Function<String, @Nullable String> parameters,
			Function<String, @Nullable String> cookies, String method, String path, @Nullable String host,
			@Nullable String remoteAddress) {
		this.headers = headers;
		this.parameters = parameters;
		this.cookies = cookies;
		this.method = method;
		this.path = path;
		this.host = host;
		this.remoteAddress = remoteAddress;
	}

	/** The first value of the header field {@code name}, or {@code null}. */
	public @Nullable String getHeader(String name) {
		return this.headers.apply(name);
	}

	/** The first value of the query parameter {@code name}, or {@code null}. */
	public @Nullable String getParameter(String name) {
		return this.parameters.apply(name);
	}

	/** The value of the cookie {@code name}, or {@code null}. */
	public @Nullable String getCookie(String name) {
		return this.cookies.apply(name);
	}

	public String getMethod() {
		return this.method;
	}

	/** The path the client sent, before any rewrite by the route. */
	public String getPath() {
		return this.path;
	}

	/** The {@code Host} the client sent, without its port, or {@code null}. */
	public @Nullable String getHost() {
		return this.host;
	}

	/** The client's address as the server reports it (behind proxies: its forwarded-header support). */
	public @Nullable String getRemoteAddr() {
		return this.remoteAddress;
	}

}
