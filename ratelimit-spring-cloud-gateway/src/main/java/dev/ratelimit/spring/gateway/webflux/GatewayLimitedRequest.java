package dev.ratelimit.spring.gateway.webflux;

import java.util.List;

import dev.ratelimit.spring.enforce.BackgroundCall;
import dev.ratelimit.spring.enforce.LimitedRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

/**
 * A request as a gateway's {@code RateLimiter} sees it: the gateway gives it a route and a key, nothing of the
 * exchange (so, as a call outside a request, no address and no path), and takes back the header fields to set on the
 * response.
 */
final class GatewayLimitedRequest implements LimitedRequest {

	private final BackgroundCall call = new BackgroundCall();

	private final HttpHeaders headers = new HttpHeaders();

	@Override
	public @Nullable String remoteAddress() {
		return this.call.remoteAddress();
	}

	@Override
	public @Nullable String path() {
		return this.call.path();
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.call.getAttribute(name);
	}

	@Override
	public void setAttribute(String name, @Nullable Object value) {
		this.call.setAttribute(name, value);
	}

	@Override
	public void removeAttribute(String name) {
		this.call.removeAttribute(name);
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
