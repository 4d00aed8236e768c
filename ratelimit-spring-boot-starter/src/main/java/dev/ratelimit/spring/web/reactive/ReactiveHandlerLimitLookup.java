package dev.ratelimit.spring.web.reactive;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.ArrivalLimitSplitter;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.util.ClassUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;

/**
 * The {@code @RateLimited} limits of the handler method that WebFlux will call for a request, found when the
 * request enters the filter, so that they are decided together with the filter rules: one decision per request.
 *
 * <p>
 * The handler is looked up as the {@code DispatcherHandler} looks it up (its handler mappings in their order, without
 * blocking), on a view of the exchange whose attributes, response header fields and status are its own, so that the
 * lookup (which may process CORS) leaves nothing behind for the dispatch. Limits whose key reads the method's
 * arguments are left to the advisor ({@link ArrivalLimitSplitter}).
 */
public final class ReactiveHandlerLimitLookup {

	/** Exchange attribute: the CORS fields the handler's mapping would add, for a denial answered without it. */
	private static final String CORS_FIELDS = ReactiveHandlerLimitLookup.class.getName() + ".corsFields";

	private final ObjectProvider<HandlerMapping> handlerMappings;

	private final RateLimitedMethodRegistry methods;

	private volatile @Nullable List<HandlerMapping> mappings;

	public ReactiveHandlerLimitLookup(ObjectProvider<HandlerMapping> handlerMappings, RateLimitedMethodRegistry methods) {
		this.handlerMappings = handlerMappings;
		this.methods = methods;
	}

	/**
	 * The limits of the request's handler that do not read its arguments, marking the exchange so that the advisor
	 * does not decide them again; empty when there is no annotated handler.
	 */
	Mono<List<ConfiguredLimit>> decideOnArrival(ServerWebExchange exchange) {
		if (!this.methods.anyAnnotated()) {
			return Mono.just(List.of());
		}
		Probe probe = new Probe(exchange);
		return Flux.fromIterable(mappings())
			.concatMap((mapping) -> mapping.getHandler(probe))
			.next()
			// No handler will run (a 405 or 415 from the dispatcher, say): only the rules apply.
			.onErrorResume((ex) -> Mono.empty())
			.map((handler) -> {
				keepCorsFields(exchange, probe);
				return limits(exchange, handler);
			})
			.defaultIfEmpty(List.of());
	}

	/**
	 * Adds to a denied exchange's response the CORS fields that the handler's mapping wrote on the probe
	 * ({@code @CrossOrigin}): without them a browser hides the 429 and its {@code Retry-After} from the page.
	 */
	static void addCorsFields(ServerWebExchange exchange) {
		if (exchange.getAttribute(CORS_FIELDS) instanceof HttpHeaders fields) {
			fields.forEach((name, values) -> exchange.getResponse().getHeaders().put(name, values));
		}
	}

	private static void keepCorsFields(ServerWebExchange exchange, Probe probe) {
		HttpHeaders fields = new HttpHeaders();
		probe.getResponse().getHeaders().forEach((name, values) -> {
			boolean cors = name.regionMatches(true, 0, "Access-Control-", 0, 15) || name.equalsIgnoreCase("Vary");
			if (cors && !values.equals(exchange.getResponse().getHeaders().getOrEmpty(name))) {
				fields.put(name, values);
			}
		});
		if (!fields.isEmpty()) {
			exchange.getAttributes().put(CORS_FIELDS, fields);
		}
	}

	private List<ConfiguredLimit> limits(ServerWebExchange exchange, Object handler) {
		if (!(handler instanceof HandlerMethod handlerMethod)) {
			return List.of();
		}
		Method method = ClassUtils.getMostSpecificMethod(handlerMethod.getMethod(), handlerMethod.getBeanType());
		return ArrivalLimitSplitter.onArrival(new ExchangeLimitedRequest(exchange), this.methods, method,
				handlerMethod.getBeanType());
	}

	private List<HandlerMapping> mappings() {
		List<HandlerMapping> mappings = this.mappings;
		if (mappings == null) {
			mappings = this.handlerMappings.orderedStream().toList();
			this.mappings = mappings;
		}
		return mappings;
	}

	/**
	 * The exchange with attributes, and a response, of its own; it reads the exchange's but never changes them.
	 */
	private static final class Probe extends ServerWebExchangeDecorator {

		private final Map<String, Object> attributes;

		private final ServerHttpResponse response;

		Probe(ServerWebExchange exchange) {
			super(exchange);
			this.attributes = new ConcurrentHashMap<>(exchange.getAttributes());
			this.response = new ProbeResponse(exchange.getResponse());
		}

		@Override
		public Map<String, Object> getAttributes() {
			return this.attributes;
		}

		@Override
		public ServerHttpResponse getResponse() {
			return this.response;
		}

	}

	private static final class ProbeResponse extends ServerHttpResponseDecorator {

		private final HttpHeaders headers = new HttpHeaders();

		private @Nullable HttpStatusCode status;

		ProbeResponse(ServerHttpResponse response) {
			super(response);
			this.headers.putAll(response.getHeaders());
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public boolean setStatusCode(@Nullable HttpStatusCode status) {
			this.status = status;
			return true;
		}

		@Override
		public @Nullable HttpStatusCode getStatusCode() {
			return (this.status != null) ? this.status : super.getStatusCode();
		}

	}

}
