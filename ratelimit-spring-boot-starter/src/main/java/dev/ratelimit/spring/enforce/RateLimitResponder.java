package dev.ratelimit.spring.enforce;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimitKeyMissingException;
import dev.ratelimit.spring.RateLimitUnavailableException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * Builds the answers of the limiter, the same for the advisor and the filter: RFC 9457 problem details with
 * {@link ProblemDetail}, and their header fields through {@link RateLimitHeaderWriter}.
 */
public final class RateLimitResponder {

	/** The problem type of the IETF rate-limit headers draft for a request over quota. */
	public static final URI QUOTA_EXCEEDED = URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

	/** The problem body's member that lists the names of the limits that refused the request. */
	public static final String VIOLATED_POLICIES = "violated-policies";

	private final RateLimitHeaderWriter headers;

	private final Duration unavailableRetryAfter;

	public RateLimitResponder(RateLimitHeaderWriter headers, Duration unavailableRetryAfter) {
		this.headers = headers;
		this.unavailableRetryAfter = unavailableRetryAfter;
	}

	RateLimitHeaderWriter headers() {
		return this.headers;
	}

	/** 429 for {@code denied}; {@code applied} lists every limit decided for the request, including denied's. */
	public RateLimitExceededException exceeded(LimitedRequest request, List<LimitDecision> applied,
			RateLimitDecision denied) {
		LimitDecision governing = denied.mostRestrictive();
		List<String> violated = denied.violated().stream().map((decision) -> decision.request().name()).toList();
		OptionalLong retryAfterMs = governing.retryAfterMs();
		String detail = !governing.request().definition().algorithm().rate()
				? "Concurrency limit '" + governing.request().name() + "' exceeded: at most "
						+ governing.request().definition().limit() + " requests of this client in flight at once; retry"
						+ " when one ends"
				: retryAfterMs.isEmpty()
				? "Rate limit '" + governing.request().name() + "' can never admit this request: its cost "
						+ governing.request().cost() + " exceeds what the limit allows (" + bound(governing) + ")"
				: "Rate limit '" + governing.request().name() + "' exceeded: retry in "
						+ RateLimitHeaderWriter.retryAfterSeconds(retryAfterMs.getAsLong()) + " s";
		ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail);
		body.setType(QUOTA_EXCEEDED);
		body.setTitle("Too Many Requests");
		body.setInstance(instance(request));
		body.setProperty(VIOLATED_POLICIES, violated);
		return new RateLimitExceededException(body, this.headers.denied(request, applied, governing), violated,
				governing.request().name(), retryAfterMs.orElse(RateLimitExceededException.NEVER));
	}

	/** 503 for a fail-closed limit that Redis could not decide. */
	RateLimitUnavailableException unavailable(LimitedRequest request) {
		ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"Rate limiting is unavailable; retry later");
		body.setInstance(instance(request));
		HttpHeaders fields = new HttpHeaders();
		fields.set(HttpHeaders.RETRY_AFTER,
				Long.toString(RateLimitHeaderWriter.retryAfterSeconds(this.unavailableRetryAfter.toMillis())));
		return new RateLimitUnavailableException(body, fields);
	}

	/** 400 for a request without the client key that {@code limit} needs. */
	RateLimitKeyMissingException keyMissing(LimitedRequest request, ConfiguredLimit limit) {
		Expression key = limit.key();
		String detail = (request instanceof BackgroundCall && key != null)
				? "The key expression '" + key.getExpressionString() + "' of rate limit '" + limit.name()
						+ "' yielded no key for a call made outside an HTTP request, where there is no IP address to fall"
						+ " back to"
				: "The request lacks the client key of rate limit '" + limit.name() + "'";
		ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
		body.setInstance(instance(request));
		return new RateLimitKeyMissingException(body);
	}

	private static long bound(LimitDecision decision) {
		return Math.max(decision.request().definition().limit(), decision.request().definition().capacity());
	}

	private static @Nullable URI instance(LimitedRequest request) {
		if (request.path() == null) {
			return null;
		}
		try {
			return URI.create(request.path());
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

}
