package dev.ratelimit.spring.gateway.webflux;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.spring.enforce.LimitedRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

/**
 * A request as a gateway's {@code RateLimiter} sees it: the gateway gives it a route and a key, nothing of the
 * exchange, and takes back the header fields to set on the response.
 */
final class GatewayLimitedRequest implements LimitedRequest {

	private final Map<String, Object> attributes = new ConcurrentHashMap<>();

	private final HttpHeaders headers = new HttpHeaders();

	@Override
	public @Nullable String remoteAddress() {
		return null;
	}

	@Override
	public @Nullable String path() {
		return null;
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.attributes.get(name);
	}

	@Override
	public void setAttribute(String name, @Nullable Object value) {
		if (value == null) {
			this.attributes.remove(name);
		}
		else {
			this.attributes.put(name, value);
		}
	}

	@Override
	public void removeAttribute(String name) {
		this.attributes.remove(name);
	}

	@Override
	public synchronized List<String> responseHeader(String name) {
		return List.copyOf(this.headers.getOrEmpty(name));
	}

	@Override
	public synchronized void setResponseHeader(String name, String value) {
		this.headers.set(name, value);
	}

	/** The fields the decision set. */
	synchronized HttpHeaders headers() {
		HttpHeaders copy = new HttpHeaders();
		copy.addAll(this.headers);
		return copy;
	}

}
