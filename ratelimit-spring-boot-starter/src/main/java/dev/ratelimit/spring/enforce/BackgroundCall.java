package dev.ratelimit.spring.enforce;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;


/**
 * A call of a {@code @RateLimited} method made outside an HTTP request (a scheduled job, a message listener, any
 * thread of the application), as the limiter sees it: no client address, no path, no response to add header fields
 * to, and attributes of its own (its deadline).
 */
public final class BackgroundCall implements LimitedRequest {

	/** Written by the thread that decides and read by the thread that Redis' answer completes on. */
	private final Map<String, Object> attributes = new ConcurrentHashMap<>(4);

	/** {@code null}: a call outside a request has no client address. */
	@Override
	public @Nullable String remoteAddress() {
		return null;
	}

	/** {@code null}: a call outside a request has no path. */
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
	public List<String> responseHeader(String name) {
		return List.of();
	}

	/** Dropped: there is no response; a denial carries its fields in the exception. */
	@Override
	public void setResponseHeader(String name, String value) {
	}

}
