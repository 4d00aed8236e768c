package dev.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.util.List;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.limits.FilterRuleMatcher;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.web.StatusChargedRules;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.EvaluationContext;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.cors.CorsUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * The rules of {@code ratelimit.filter.rules} charged by the response ({@code charge-on-status},
 * {@code settle-cost-header}), on Spring MVC, as {@link StatusChargedRules} admits and charges them: once, just before
 * the response's body, error or redirect is written ({@link ChargeBeforeCommit}, which also keeps cost headers from
 * the client), so that a client that has its answer finds the charge recorded; a response without a body when the
 * chain returns (an async one when it completes); a request that ends in an exception, a client that went away
 * included, as a 500. Ordered before Spring Security, so that Security's own 401 and 403 answers are counted; for the
 * same reason its keys cannot read the principal. The response carries the rate-limit fields of the admission, set
 * before the application answers.
 */
public final class ChargeOnStatusFilter extends OncePerRequestFilter {

	private final LimitConfigurations configurations;

	private final StatusChargedRules charges;

	private final ClientKeyResolver clientKeys;

	private final DenialRenderer denials;

	public ChargeOnStatusFilter(LimitConfigurations configurations, RateLimitEnforcer enforcer,
			ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		this.configurations = configurations;
		this.charges = new StatusChargedRules(enforcer);
		this.clientKeys = enforcer.clientKeys();
		this.denials = new DenialRenderer(exceptionResolver);
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		ServletLimitedRequest limited = new ServletLimitedRequest(request, response);
		FilterRuleMatcher rules = RequestConfiguration.of(limited, this.configurations).rules();
		List<ConfiguredLimit> matched = rules.anyChargedByOutcome() && !CorsUtils.isPreFlightRequest(request)
				? rules.matchingChargedByOutcome(request.getMethod(), path(request)) : List.of();
		if (matched.isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		EvaluationContext context = this.clientKeys.context(limited, request, null, null);
		StatusChargedRules.Admission admission;
		try {
			admission = this.charges.admit(limited, matched, context);
		}
		catch (RateLimitException ex) {
			this.denials.render(request, response, ex);
			return;
		}
		ChargeBeforeCommit watched = new ChargeBeforeCommit(response, StatusChargedRules.costHeaders(matched),
				(status, costHeaders) -> this.charges.charge(admission, status, costHeaders));
		try {
			chain.doFilter(request, watched);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			// the container answers an exception that leaves the filters with a 500
			watched.chargeOnce(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
			throw ex;
		}
		if (request.isAsyncStarted()) {
			request.getAsyncContext().addListener(new ChargeOnComplete(() -> watched.chargeOnce(response.getStatus())));
		}
		else {
			// a response without a body: charged now
			watched.chargeOnce(response.getStatus());
		}
	}

	private static PathContainer path(HttpServletRequest request) {
		return RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication();
	}

	/** Charges an async request when it completes (after a timeout or an error too), with its final status. */
	private record ChargeOnComplete(Runnable charge) implements AsyncListener {

		@Override
		public void onComplete(AsyncEvent event) {
			this.charge.run();
		}

		@Override
		public void onTimeout(AsyncEvent event) {
		}

		@Override
		public void onError(AsyncEvent event) {
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
		}

	}

}
