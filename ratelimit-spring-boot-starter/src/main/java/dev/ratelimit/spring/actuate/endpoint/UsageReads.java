package dev.ratelimit.spring.actuate.endpoint;

import java.util.Arrays;
import java.util.Locale;

import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.Usage;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.ClientUnits;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.Error;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint.UsagePage;
import dev.ratelimit.spring.limits.LimitConfigurations;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.ratelimit.spring.actuate.endpoint.Responses.badRequest;
import static dev.ratelimit.spring.actuate.endpoint.Responses.notFound;
import static dev.ratelimit.spring.actuate.endpoint.Responses.storeFailed;

/**
 * The endpoint's read of a limit's usage ({@code GET /actuator/ratelimits/{name}/usage}): a page of the units each
 * client used in the current or the previous period, largest first ({@link RateLimiter#usage}).
 */
final class UsageReads {

	/** The last segment of a usage read's path. */
	static final String SEGMENT = "usage";

	/** Clients per page when the request says none. */
	static final int DEFAULT_SIZE = 100;

	private final RateLimiter limiter;

	private final LimitConfigurations configurations;

	UsageReads(RateLimiter limiter, LimitConfigurations configurations) {
		this.limiter = limiter;
		this.configurations = configurations;
	}

	/** Whether {@code path} reads a limit's usage: its last segment is {@value #SEGMENT}, after the limit's name. */
	static boolean reads(String[] path) {
		return path.length > 1 && path[path.length - 1].equals(SEGMENT);
	}

	/**
	 * A page of the usage of the limit the path names before its last segment: 404 for an unknown limit or one that
	 * records no usage, 400 for a period other than {@code current} and {@code previous} or a page out of range.
	 */
	WebEndpointResponse<Object> read(String[] path, @Nullable String period, @Nullable Integer page,
			@Nullable Integer size) {
		LimitLookup lookup = new LimitLookup(this.configurations.current());
		String limit = lookup.name(Arrays.copyOf(path, path.length - 1));
		if (!lookup.known(limit)) {
			return notFound(lookup, limit);
		}
		LimitDefinition recording = lookup.shapesOf(limit)
			.keySet()
			.stream()
			.filter((shape) -> shape.usage() != null)
			.findFirst()
			.orElse(null);
		if (recording == null) {
			return new WebEndpointResponse<>(new Error("Rate limit '" + limit + "' records no usage: set usage on its"
					+ " rule, annotation or gateway route (usage: true, or a period such as 'month')"), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		Usage.Period which;
		try {
			which = (period != null) ? Usage.Period.valueOf(period.trim().toUpperCase(Locale.ROOT)) : Usage.Period.CURRENT;
		}
		catch (IllegalArgumentException ex) {
			return badRequest("period must be 'current' or 'previous', but was '" + period + "'");
		}
		try {
			Usage usage = this.limiter.usage(recording, which, (page != null) ? page : 0,
					(size != null) ? size : DEFAULT_SIZE);
			return new WebEndpointResponse<>(new UsagePage(limit, which.name().toLowerCase(Locale.ROOT),
					usage.periodStart().toString(), usage.periodEnd().toString(), usage.clients(), usage.overflowUnits(),
					usage.page(), usage.size(),
					usage.entries().stream().map((entry) -> new ClientUnits(entry.clientId(), entry.units())).toList()));
		}
		catch (IllegalArgumentException ex) {
			return badRequest(ex.getMessage());
		}
		catch (RuntimeException ex) {
			return storeFailed("read the usage of", limit, ex);
		}
	}

}
