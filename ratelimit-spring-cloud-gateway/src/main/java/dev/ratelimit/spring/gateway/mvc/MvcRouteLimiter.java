package dev.ratelimit.spring.gateway.mvc;

import java.io.IOException;
import java.util.List;
import java.util.function.Function;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.gateway.RouteKeyRequest;
import dev.ratelimit.spring.gateway.RouteKeys;
import dev.ratelimit.spring.gateway.RouteLimits;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.servlet.DenialRenderer;
import dev.ratelimit.spring.web.servlet.RequestEnd;
import dev.ratelimit.spring.web.servlet.ServletLimitedRequest;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * What the {@code RateLimited} filters of Gateway Server MVC decide with: the route's limit for each request before
 * it is proxied, a denial rendered as Spring MVC renders the starter's denials, and the leases held until the proxied
 * response has been written (its body is written after the filter returns).
 */
public final class MvcRouteLimiter {

	private static final Log logger = LogFactory.getLog(MvcRouteLimiter.class);

	private final RouteLimits limits;

	private final PermitWaiter waits;

	private final DenialRenderer denials;

	public MvcRouteLimiter(RouteLimits limits, PermitWaiter waits, DenialRenderer denials) {
		this.limits = limits;
		this.waits = waits;
		this.denials = denials;
	}

	ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next, MvcRouteFilter filter)
			throws Exception {
		HttpServletRequest servletRequest = request.servletRequest();
		if (servletRequest.getAttribute(filter.decided()) != null) {
			// a Retry filter before this one calling the rest again: one charge per client request
			return next.handle(request);
		}
		servletRequest.setAttribute(filter.decided(), Boolean.TRUE);
		HttpServletResponse servletResponse = response();
		ServletLimitedRequest limited = new ServletLimitedRequest(servletRequest, servletResponse);
		List<ConfiguredLimit> limits;
		try {
			limits = this.limits.resolve(RequestConfiguration.of(limited, this.limits.configurations()),
					filter.route(routeId(request), this.limits));
		}
		catch (IllegalArgumentException ex) {
			// a route not checked at startup (the Java DSL's, or routes rebuilt by a refresh): refused, not let
			// through unlimited
			logger.error("Refusing the requests of a route whose rate limit is invalid: " + ex.getMessage());
			return ServerResponse.status(HttpStatus.SERVICE_UNAVAILABLE).build();
		}
		String resolved = resolvedKey(request, filter.config());
		EvaluationContext keys = RouteKeys.context(keyRequest(servletRequest), servletRequest.getUserPrincipal(),
				resolved);
		Reservation held = new Reservation();
		try {
			this.waits.enforce(limited, limits, keys, this.waits.maxWait(limits, true), held);
		}
		catch (RateLimitException ex) {
			if (servletResponse == null) {
				return ServerResponse.status(ex.getStatusCode()).headers((headers) -> headers.addAll(ex.getHeaders()))
					.body(ex.getBody());
			}
			this.denials.render(servletRequest, servletResponse, ex);
			return new Written(ex.getStatusCode());
		}
		if (!held.holdsLeases()) {
			return next.handle(request);
		}
		ServerResponse response;
		try {
			response = next.handle(request);
		}
		catch (Exception | Error ex) {
			RequestEnd.release(servletRequest, this.waits.enforcer(), held);
			throw ex;
		}
		return new ReleasingResponse(response, this.waits, held);
	}

	/** The key function's key, {@code null} when it gives none or fails: then the key is missing. */
	private static @Nullable String resolvedKey(ServerRequest request, RateLimitedFilterFunctions.Config config) {
		Function<ServerRequest, @Nullable String> resolver = config.getKeyResolver();
		if (resolver == null) {
			return null;
		}
		try {
			return resolver.apply(request);
		}
		catch (RuntimeException ex) {
			// a failing key function must not fail the request: its key is missing (ratelimit.missing-key)
			logger.warn("The key resolver of the rate limit of route '" + routeId(request) + "' failed; treating"
					+ " the key as missing (ratelimit.missing-key): " + ex);
			return null;
		}
	}

	private static String routeId(ServerRequest request) {
		String routeId = MvcUtils.getAttribute(request, MvcUtils.GATEWAY_ROUTE_ID_ATTR);
		if (routeId == null) {
			throw new IllegalArgumentException("A RateLimited filter on a route without an id: give the route an id"
					+ " (GatewayRouterFunctions.route(\"api\"))");
		}
		return routeId;
	}

	private static @Nullable HttpServletResponse response() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getResponse() : null;
	}

	/**
	 * Query parameters from the query string alone: {@code getParameter} would read a form body too, which the
	 * gateway must still forward.
	 */
	static RouteKeyRequest keyRequest(HttpServletRequest request) {
		String host = request.getServerName();
		ServletLimitedRequest query = new ServletLimitedRequest(request, null);
		return new RouteKeyRequest(request::getHeader, query::queryParameter, (name) -> cookie(request, name),
				request.getMethod(), request.getRequestURI(), host, request.getRemoteAddr());
	}

	private static @Nullable String cookie(HttpServletRequest request, String name) {
		Cookie[] cookies = request.getCookies();
		if (cookies != null) {
			for (Cookie cookie : cookies) {
				if (cookie.getName().equals(name)) {
					return cookie.getValue();
				}
			}
		}
		return null;
	}

	/** A denial already written on the servlet response; its status for the filters before this one (Retry). */
	private record Written(HttpStatusCode statusCode) implements ServerResponse {

		@Override
		public HttpHeaders headers() {
			return new HttpHeaders();
		}

		@Override
		public MultiValueMap<String, Cookie> cookies() {
			return new LinkedMultiValueMap<>();
		}

		@Override
		public @Nullable ModelAndView writeTo(HttpServletRequest request, HttpServletResponse response,
				Context context) {
			return null;
		}

	}

	/** The proxied response, whose leases are given back once it has been written (or its asynchronous end). */
	private record ReleasingResponse(ServerResponse response, PermitWaiter waits, Reservation held)
			implements ServerResponse {

		@Override
		public HttpStatusCode statusCode() {
			return this.response.statusCode();
		}

		@Override
		public HttpHeaders headers() {
			return this.response.headers();
		}

		@Override
		public MultiValueMap<String, Cookie> cookies() {
			return this.response.cookies();
		}

		@Override
		public @Nullable ModelAndView writeTo(HttpServletRequest request, HttpServletResponse response,
				Context context) throws ServletException, IOException {
			try {
				return this.response.writeTo(request, response, context);
			}
			finally {
				RequestEnd.release(request, this.waits.enforcer(), this.held);
			}
		}

	}

}
