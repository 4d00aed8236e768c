package dev.ratelimit.spring.web.reactive;

import java.util.List;

import dev.ratelimit.spring.RateLimitException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.reactive.DispatchExceptionHandler;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.reactive.HandlerResultHandler;
import org.springframework.web.server.ServerWebExchange;

/**
 * Answers a denial of the WebFilter as WebFlux answers an error raised before a handler runs (a 404, say): through
 * the {@link DispatchExceptionHandler}s of its handler adapters, which apply the application's
 * {@code @ControllerAdvice} exception handlers and the starter's, then the result handlers that write the response.
 * So a denial by a rule and a denial by an annotation are customised in one place, as on Spring MVC. Whatever no
 * exception handler takes goes on to the application's {@code WebExceptionHandler}s (Spring Boot's error handling).
 */
public final class ExchangeErrorHandler {

	private final ObjectProvider<HandlerAdapter> adapters;

	private final ObjectProvider<HandlerResultHandler> resultHandlers;

	private volatile @Nullable List<DispatchExceptionHandler> exceptionHandlers;

	private volatile @Nullable List<HandlerResultHandler> handlers;

	public ExchangeErrorHandler(ObjectProvider<HandlerAdapter> adapters, ObjectProvider<HandlerResultHandler> resultHandlers) {
		this.adapters = adapters;
		this.resultHandlers = resultHandlers;
	}

	public Mono<Void> render(ServerWebExchange exchange, RateLimitException ex) {
		Mono<HandlerResult> result = Mono.error(ex);
		for (DispatchExceptionHandler handler : exceptionHandlers()) {
			result = result.onErrorResume((error) -> handler.handleError(exchange, error));
		}
		return result.flatMap((handled) -> write(exchange, handled));
	}

	private Mono<Void> write(ServerWebExchange exchange, HandlerResult result) {
		for (HandlerResultHandler handler : resultHandlers()) {
			if (handler.supports(result)) {
				return handler.handleResult(exchange, result);
			}
		}
		return Mono.error(new IllegalStateException("No HandlerResultHandler for " + result.getReturnValue()));
	}

	private List<DispatchExceptionHandler> exceptionHandlers() {
		List<DispatchExceptionHandler> handlers = this.exceptionHandlers;
		if (handlers == null) {
			handlers = this.adapters.orderedStream()
				.filter(DispatchExceptionHandler.class::isInstance)
				.map(DispatchExceptionHandler.class::cast)
				.toList();
			this.exceptionHandlers = handlers;
		}
		return handlers;
	}

	private List<HandlerResultHandler> resultHandlers() {
		List<HandlerResultHandler> handlers = this.handlers;
		if (handlers == null) {
			handlers = this.resultHandlers.orderedStream().toList();
			this.handlers = handlers;
		}
		return handlers;
	}

}
