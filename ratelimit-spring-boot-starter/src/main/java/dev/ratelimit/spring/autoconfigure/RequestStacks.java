package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.limits.RequestStack;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;
import org.springframework.util.ClassUtils;

/**
 * The web stack of an application, told by its context as {@code @ConditionalOnWebApplication} tells it, with the
 * types by name: each stack's classes are optional.
 */
final class RequestStacks {

	private static final String REACTIVE_CONTEXT = "org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext";

	private static final String SERVLET_CONTEXT = "org.springframework.web.context.WebApplicationContext";

	private RequestStacks() {
	}

	/** {@code null} outside a web application: there, no {@code #request} is checked. */
	static @Nullable RequestStack of(ApplicationContext context) {
		ClassLoader loader = context.getClassLoader();
		if (is(context, REACTIVE_CONTEXT, loader)
				&& ClassUtils.isPresent("org.springframework.http.server.reactive.ServerHttpRequest", loader)) {
			return new RequestStack("Spring WebFlux",
					ClassUtils.resolveClassName("org.springframework.http.server.reactive.ServerHttpRequest", loader));
		}
		if (is(context, SERVLET_CONTEXT, loader) && ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", loader)) {
			return new RequestStack("Spring MVC",
					ClassUtils.resolveClassName("jakarta.servlet.http.HttpServletRequest", loader));
		}
		return null;
	}

	private static boolean is(ApplicationContext context, String type, @Nullable ClassLoader loader) {
		return ClassUtils.isPresent(type, loader) && ClassUtils.resolveClassName(type, loader).isInstance(context);
	}

}
