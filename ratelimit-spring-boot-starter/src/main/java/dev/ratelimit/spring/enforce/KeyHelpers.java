package dev.ratelimit.spring.enforce;

import java.security.Principal;

import org.jspecify.annotations.Nullable;

/**
 * What the key helpers read ({@link dev.ratelimit.spring.limits.KeyVariables#HELPERS}): one request, on whichever
 * stack it came, through {@link LimitedRequest}. Each method is a helper of its name.
 */
final class KeyHelpers {

	private final LimitedRequest request;

	private final @Nullable Principal principal;

	KeyHelpers(LimitedRequest request, @Nullable Principal principal) {
		this.request = request;
		this.principal = principal;
	}

	@Nullable String header(String name) {
		return this.request.header(name);
	}

	@Nullable String queryParam(String name) {
		return this.request.queryParameter(name);
	}

	/** The client's address as the limiter keys it when a key is missing, without its {@code ip:} prefix. */
	@Nullable String clientIp() {
		String address = this.request.remoteAddress();
		return (address != null) ? ClientKeyResolver.canonicalIp(address) : null;
	}

	@Nullable String principalName() {
		return (this.principal != null) ? this.principal.getName() : null;
	}

}
