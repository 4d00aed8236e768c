package dev.ratelimit.spring.gateway.webflux;

import java.net.InetSocketAddress;

import dev.ratelimit.spring.gateway.RouteKeyRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpCookie;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

/** A WebFlux exchange's request as route keys read it. */
final class ExchangeKeys {

	private ExchangeKeys() {
	}

	static RouteKeyRequest of(ServerWebExchange exchange) {
		ServerHttpRequest request = exchange.getRequest();
		InetSocketAddress remote = request.getRemoteAddress();
		String address = (remote == null) ? null
				: (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
		return new RouteKeyRequest(request.getHeaders()::getFirst, request.getQueryParams()::getFirst,
				(name) -> cookie(request, name), request.getMethod().name(), request.getPath().value(),
				request.getURI().getHost(), address);
	}

	private static @Nullable String cookie(ServerHttpRequest request, String name) {
		HttpCookie cookie = request.getCookies().getFirst(name);
		return (cookie != null) ? cookie.getValue() : null;
	}

}
