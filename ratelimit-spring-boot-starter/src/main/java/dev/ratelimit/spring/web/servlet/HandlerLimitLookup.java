package dev.ratelimit.spring.web.servlet;

import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.ArrivalLimitSplitter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;

/**
 * The {@code @RateLimited} limits of the handler method that Spring MVC will call for a request, found when the
 * request enters the filter, so that they are decided together with the filter rules: one decision per request.
 *
 * <p>
 * The handler is looked up as the {@code DispatcherServlet} looks it up (its handler mappings in their order), on a
 * view of the request whose attributes are its own, so that the lookup leaves nothing behind for the dispatch.
 * Limits whose key reads the method's arguments are left to RateLimitedAdvisor, which sees the arguments
 * ({@link ArrivalLimitSplitter}).
 */
public final class HandlerLimitLookup {

	private final ObjectProvider<HandlerMapping> handlerMappings;

	private final RateLimitedMethodRegistry methods;

	private volatile @Nullable List<HandlerMapping> mappings;

	public HandlerLimitLookup(ObjectProvider<HandlerMapping> handlerMappings, RateLimitedMethodRegistry methods) {
		this.handlerMappings = handlerMappings;
		this.methods = methods;
	}

	/**
	 * The limits of the request's handler that do not read its arguments, marking the request so that the advisor
	 * does not decide them again; empty when there is no annotated handler.
	 */
	List<ConfiguredLimit> decideOnArrival(HttpServletRequest request) {
		if (!this.methods.anyAnnotated()) {
			return List.of();
		}
		HandlerMethod handler = handler(request);
		if (handler == null) {
			return List.of();
		}
		Method method = ClassUtils.getMostSpecificMethod(handler.getMethod(), handler.getBeanType());
		return ArrivalLimitSplitter.onArrival(new ServletLimitedRequest(request, null), this.methods, method,
				handler.getBeanType());
	}

	private @Nullable HandlerMethod handler(HttpServletRequest request) {
		HttpServletRequest probe = new OwnAttributes(request);
		for (HandlerMapping mapping : mappings()) {
			HandlerExecutionChain chain;
			try {
				chain = mapping.getHandler(probe);
			}
			catch (Exception ex) {
				// No handler will run (a 405 or 415 from the dispatcher, say): only the rules apply.
				return null;
			}
			if (chain != null) {
				return (chain.getHandler() instanceof HandlerMethod method) ? method : null;
			}
		}
		return null;
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
	 * The request with attributes of its own on top of the request's, which it reads but never changes. One map, in
	 * which a removed attribute is {@link #REMOVED}: the lookup writes half a dozen attributes on every request.
	 */
	private static final class OwnAttributes extends HttpServletRequestWrapper {

		private static final Object REMOVED = new Object();

		private final Map<String, Object> attributes = new HashMap<>();

		OwnAttributes(HttpServletRequest request) {
			super(request);
		}

		@Override
		public @Nullable Object getAttribute(String name) {
			Object own = this.attributes.get(name);
			if (own == null) {
				return super.getAttribute(name);
			}
			return (own == REMOVED) ? null : own;
		}

		@Override
		public Enumeration<String> getAttributeNames() {
			Set<String> names = new HashSet<>(Collections.list(super.getAttributeNames()));
			this.attributes.forEach((name, value) -> {
				if (value == REMOVED) {
					names.remove(name);
				}
				else {
					names.add(name);
				}
			});
			return Collections.enumeration(names);
		}

		@Override
		public void setAttribute(String name, Object value) {
			this.attributes.put(name, (value != null) ? value : REMOVED);
		}

		@Override
		public void removeAttribute(String name) {
			this.attributes.put(name, REMOVED);
		}

	}

}
