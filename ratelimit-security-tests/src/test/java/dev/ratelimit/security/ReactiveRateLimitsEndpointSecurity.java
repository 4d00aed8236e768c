package dev.ratelimit.security;

import org.springframework.boot.security.autoconfigure.actuate.web.reactive.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.csrf.CsrfWebFilter;
import org.springframework.security.web.server.util.matcher.AndServerWebExchangeMatcher;
import org.springframework.security.web.server.util.matcher.NegatedServerWebExchangeMatcher;

/**
 * The snippet of docs/OPERATIONS.md for WebFlux, as written there (DocumentedSnippetsTests compares them): the
 * {@code ratelimits} endpoint with HTTP Basic, a role, no session and no CSRF token; every other URL keeps CSRF
 * protection, in the application's own chain or {@link ReactiveApplicationSecurity}.
 */
// snippet:start webflux
@Configuration(proxyBeanMethods = false)
class ReactiveRateLimitsEndpointSecurity {

	/** The ratelimits endpoint only: HTTP Basic for the OPS role, no session, so no CSRF token to ask for. */
	@Bean
	@Order(1)
	SecurityWebFilterChain rateLimitsEndpointChain(ServerHttpSecurity http) {
		return http.securityMatcher(EndpointRequest.to("ratelimits"))
			.authorizeExchange((exchanges) -> exchanges.anyExchange().hasRole("OPS"))
			.httpBasic(Customizer.withDefaults())
			.securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
			.csrf((csrf) -> csrf.requireCsrfProtectionMatcher(new AndServerWebExchangeMatcher(
					CsrfWebFilter.DEFAULT_CSRF_MATCHER, new NegatedServerWebExchangeMatcher(EndpointRequest.to("ratelimits")))))
			.build();
	}

}
// snippet:end webflux
