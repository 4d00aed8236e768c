package dev.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.util.List;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.limits.LimitConfigurations;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.cors.CorsUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Decides every request on its arrival: the rules of {@code ratelimit.filter.rules} that match it, together with the
 * {@code @RateLimited} limits of the handler method it goes to (except those whose key reads the method's
 * arguments, which RateLimitedAdvisor decides when the method is called), in one decision. A {@link OncePerRequestFilter}:
 * the error, forward and async dispatches of one request are charged once.
 *
 * <p>
 * A denial is rendered by Spring MVC's exception resolvers, exactly as the advisor's denial is, so the application
 * customises both in one place. Without Spring MVC the container's error page answers, with the same status and
 * header fields.
 */
public final class RateLimitFilter extends OncePerRequestFilter {

	private final LimitConfigurations configurations;

	private final PermitWaiter waits;

	private final HandlerLimitLookup handlerLimits;

	private final DenialRenderer denials;

	public RateLimitFilter(LimitConfigurations configurations, PermitWaiter waits, HandlerLimitLookup handlerLimits,
			ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		this.configurations = configurations;
		this.waits = waits;
		this.handlerLimits = handlerLimits;
		this.denials = new DenialRenderer(exceptionResolver);
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (CorsUtils.isPreFlightRequest(request)) {
			// A CORS preflight is the browser asking, not the client acting: charging it would halve the budget.
			chain.doFilter(request, response);
			return;
		}
		PathContainer path = RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication();
		ServletLimitedRequest limited = new ServletLimitedRequest(request, response);
		List<ConfiguredLimit> matched = RequestConfiguration.of(limited, this.configurations)
			.rules()
			.matching(request.getMethod(), path);
		matched.addAll(this.handlerLimits.decideOnArrival(request));
		Reservation held = new Reservation();
		if (!matched.isEmpty()) {
			try {
				// waits for a permit only when every limit sets a wait (a rule's max-wait, a handler's maxWait)
				this.waits.enforce(limited, matched,
						this.waits.enforcer().clientKeys().context(limited, request, request.getUserPrincipal(), null),
						this.waits.maxWait(matched, true), held);
			}
			catch (RateLimitException ex) {
				this.denials.render(request, response, ex);
				return;
			}
		}
		if (!held.holdsLeases()) {
			chain.doFilter(request, response);
			return;
		}
		try {
			chain.doFilter(request, response);
		}
		finally {
			RequestEnd.release(request, this.waits.enforcer(), held);
		}
	}

}
