package dev.ratelimit.spring.web.servlet;

import java.io.IOException;

import dev.ratelimit.spring.RateLimitException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * A denial in a filter, rendered by Spring MVC's exception resolvers exactly as the advisor's denial is, so the
 * application customises both in one place; without Spring MVC, the container's error page with the same status and
 * header fields.
 */
public final class DenialRenderer {

	/** Looked up once it exists: a bean lookup per denial cost a denied flood a fifth of its throughput. */
	private final SingletonSupplier<HandlerExceptionResolver> exceptionResolver;

	public DenialRenderer(ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		this.exceptionResolver = SingletonSupplier.of(exceptionResolver::getIfAvailable);
	}

	/** Writes the answer to {@code ex} on {@code response}: its status, header fields and problem body. */
	public void render(HttpServletRequest request, HttpServletResponse response, RateLimitException ex)
			throws IOException {
		HandlerExceptionResolver resolver = this.exceptionResolver.get();
		if (resolver != null && resolver.resolveException(request, response, null, ex) != null) {
			return;
		}
		ex.getHeaders().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		response.sendError(ex.getStatusCode().value(), ex.getBody().getDetail());
	}

}
