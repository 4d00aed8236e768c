package dev.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.util.List;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.OutcomeCharger;
import dev.ratelimit.spring.enforce.RequestDeadline;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.FilterRuleMatcher;
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
 * The rules of {@code ratelimit.filter.rules} charged by the response's status ({@code charge-on-status}), on Spring
 * MVC: a request is admitted while they have room (read without consuming) and charged to those whose statuses its
 * response has, once the rest of the chain has answered it (for an async request, when it completes; a request that
 * ends in an exception counts as a 500). Ordered before Spring Security, so that Security's own 401 and 403 answers
 * are counted; for the same reason its keys cannot read the principal.
 *
 * <p>
 * The request's time in this filter is apart from the rest of the request's ({@link RequestDeadline#apart}): the
 * admission and the charge share one {@code ratelimit.redis.timeout}, and what the application takes in between is
 * taken from neither. The response carries the rate-limit fields of the admission read, set before the application
 * answers (whatever commits the response then): the state before this request's charge.
 */
public final class ChargeOnStatusFilter extends OncePerRequestFilter {

	private final FilterRuleMatcher rules;

	private final OutcomeCharger charger;

	private final ClientKeyResolver clientKeys;

	private final DenialRenderer denials;

	public ChargeOnStatusFilter(FilterRuleMatcher rules, OutcomeCharger charger, ClientKeyResolver clientKeys,
			ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
		this.rules = rules;
		this.charger = charger;
		this.clientKeys = clientKeys;
		this.denials = new DenialRenderer(exceptionResolver);
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		List<ConfiguredLimit> matched = this.rules.anyChargedByOutcome() && !CorsUtils.isPreFlightRequest(request)
				? this.rules.matchingChargedByOutcome(request.getMethod(), path(request)) : List.of();
		if (matched.isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		LimitedRequest limited = RequestDeadline.apart(new ServletLimitedRequest(request, response));
		EvaluationContext context = this.clientKeys.context(request, null, null);
		try {
			this.charger.admitRules(limited, matched, context);
		}
		catch (RateLimitException ex) {
			this.denials.render(request, response, ex);
			return;
		}
		try {
			chain.doFilter(request, response);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			// the container answers an exception that leaves the filters with a 500
			this.charger.chargeStatus(limited, matched, HttpServletResponse.SC_INTERNAL_SERVER_ERROR, context);
			throw ex;
		}
		if (request.isAsyncStarted()) {
			request.getAsyncContext()
				.addListener(new ChargeOnComplete(
						() -> this.charger.chargeStatus(limited, matched, response.getStatus(), context)));
		}
		else {
			this.charger.chargeStatus(limited, matched, response.getStatus(), context);
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
