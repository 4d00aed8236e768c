package dev.ratelimit.spring.web.reactive;

import java.net.InetSocketAddress;
import java.util.List;

import dev.ratelimit.spring.enforce.LimitedRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.web.server.ServerWebExchange;

/** A WebFlux exchange as the limiter sees it. */
public record ExchangeLimitedRequest(ServerWebExchange exchange) implements LimitedRequest {

	@Override
	public String remoteAddress() {
		// After ForwardedHeaderTransformer (server.forward-headers-strategy=framework), when the application has one.
		InetSocketAddress address = this.exchange.getRequest().getRemoteAddress();
		if (address == null) {
			return "unknown";
		}
		return (address.getAddress() != null) ? address.getAddress().getHostAddress() : address.getHostString();
	}

	@Override
	public String path() {
		return this.exchange.getRequest().getPath().value();
	}

	@Override
	public @Nullable String header(String name) {
		return this.exchange.getRequest().getHeaders().getFirst(name);
	}

	@Override
	public @Nullable String queryParameter(String name) {
		return this.exchange.getRequest().getQueryParams().getFirst(name);
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.exchange.getAttribute(name);
	}

	@Override
	public void setAttribute(String name, @Nullable Object value) {
		if (value == null) {
			removeAttribute(name);
		}
		else {
			this.exchange.getAttributes().put(name, value);
		}
	}

	@Override
	public void removeAttribute(String name) {
		this.exchange.getAttributes().remove(name);
	}

	@Override
	public List<String> responseHeader(String name) {
		return List.copyOf(this.exchange.getResponse().getHeaders().getOrEmpty(name));
	}

	@Override
	public void setResponseHeader(String name, String value) {
		this.exchange.getResponse().getHeaders().set(name, value);
	}

}
